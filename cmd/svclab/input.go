package main

// inputErrors recognise errors that are the user's input (exit 2); the
// Linux build adds the lab's.
var inputErrors []func(error) bool

func isInputError(err error) bool {
	for _, is := range inputErrors {
		if is(err) {
			return true
		}
	}
	return false
}
