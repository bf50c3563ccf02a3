package cuda

// Event is a CUDA event handle (CUevent), for timing.
type Event uintptr

// NewEvent creates an event with default flags (timing enabled).
func (c *Context) NewEvent() (Event, error) {
	var e uintptr
	err := c.do(func() error {
		return check("cuEventCreate", c.drv.cuEventCreate(&e, 0)) // CU_EVENT_DEFAULT
	})
	if err != nil {
		return 0, err
	}
	return Event(e), nil
}

// Record records e on the null stream.
func (c *Context) Record(e Event) error {
	return c.do(func() error {
		return check("cuEventRecord", c.drv.cuEventRecord(uintptr(e), 0))
	})
}

// ElapsedMillis waits for end to complete and returns the time in
// milliseconds between the recordings of start and end.
func (c *Context) ElapsedMillis(start, end Event) (float32, error) {
	var ms float32
	err := c.do(func() error {
		if err := check("cuEventSynchronize", c.drv.cuEventSynchronize(uintptr(end))); err != nil {
			return err
		}
		return check("cuEventElapsedTime", c.drv.cuEventElapsedTime(&ms, uintptr(start), uintptr(end)))
	})
	if err != nil {
		return 0, err
	}
	return ms, nil
}

// DestroyEvent destroys e.
func (c *Context) DestroyEvent(e Event) error {
	return c.do(func() error {
		return check("cuEventDestroy_v2", c.drv.cuEventDestroy(uintptr(e)))
	})
}
