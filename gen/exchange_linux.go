package gen

import (
	"errors"

	"golang.org/x/sys/unix"
)

var errNoExchange = errors.New("atomic directory exchange not supported")

// exchange atomically swaps the directories a and b (renameat2
// RENAME_EXCHANGE, Linux 3.15+).
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		return errNoExchange
	}
	return err
}
