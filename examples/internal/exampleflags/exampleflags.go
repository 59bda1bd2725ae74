// Package exampleflags is the one set of flags every runnable example
// takes, so that what works for one works for all: -offline, -yes, -db,
// and -h, which prints the usage and exits 0.
package exampleflags

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Flags are the shared flags' values; Args are the words after them.
type Flags struct {
	// Offline uses a built-in fake OpenAI-compatible model server.
	Offline bool
	// Yes answers every human-in-the-loop pause with yes, without asking.
	Yes bool
	// DB is a SQLite file for sessions and runs ("" keeps them in memory
	// or in a temporary file, as the example says).
	DB   string
	Args []string
}

// Parse parses args (without the program name). extra adds an example's
// own flags. A -h is flag.ErrHelp, after the usage went to out.
func Parse(name, summary string, args []string, out io.Writer, extra func(*flag.FlagSet)) (*Flags, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	var f Flags
	fs.BoolVar(&f.Offline, "offline", false, "use a built-in fake OpenAI-compatible model server (no key, no network)")
	fs.BoolVar(&f.Yes, "yes", false, "answer every human-in-the-loop pause with yes, without asking")
	fs.StringVar(&f.DB, "db", "", "SQLite file for sessions and runs (default: the example's own)")
	if extra != nil {
		extra(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(out, "%s: %s\n\nusage: go run ./examples/%s [flags]\n", name, summary, name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &parseError{err} // fs printed it with the usage
	}
	f.Args = fs.Args()
	return &f, nil
}

// Exit ends the process for err: 0 for none or -h, 2 for a bad flag
// (its message is already out), 1 for anything else.
func Exit(err error) {
	var code int
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case isFlagError(err):
		code = 2
	default:
		fmt.Fprintln(os.Stderr, "error:", err)
		code = 1
	}
	os.Exit(code)
}

func isFlagError(err error) bool {
	var pe *parseError
	return errors.As(err, &pe)
}

// parseError is a bad flag or value given to Parse.
type parseError struct{ err error }

func (e *parseError) Error() string { return e.err.Error() }
func (e *parseError) Unwrap() error { return e.err }
