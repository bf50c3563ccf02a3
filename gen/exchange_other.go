//go:build !linux

package gen

import "errors"

var errNoExchange = errors.New("atomic directory exchange not supported")

func exchange(a, b string) error { return errNoExchange }
