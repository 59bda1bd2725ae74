//go:build !linux

package shell

import "errors"

// canAwaitExit: elsewhere the exit is only seen by reaping, after which
// the process group id may be reused, so leftovers are not killed.
const canAwaitExit = false

func awaitExit(int) error { return errors.ErrUnsupported }
