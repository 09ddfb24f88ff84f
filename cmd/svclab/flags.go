package main

import (
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/svclab/svclab/sim/suggest"
)

// errHelp is returned by parseFlags for -h/--help: dispatch prints the
// command's usage on stdout and exits 0.
var errHelp = errors.New("help requested")

// newFlagSet returns a flag set that reports errors as usage errors instead
// of printing and exiting.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args, allowing flags after positional arguments, and
// returns the positional ones.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, errHelp
			}
			return nil, usagef("%v%s", err, flagHint(fs, err))
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// flagHint is " (did you mean --x?)" when err is about an undefined flag
// close to one of fs's.
func flagHint(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	name = strings.TrimLeft(name, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if c, ok := suggest.Closest(name, names); ok {
		return " (did you mean --" + c + "?)"
	}
	return ""
}
