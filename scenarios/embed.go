// Package scenarios embeds svclab's scenario files, so `svclab run NAME`
// works from any directory. Each *.yaml file here is one scenario; its name
// is the file name without the extension.
package scenarios

import "embed"

// FS holds every scenario file of this directory.
//
//go:embed *.yaml
var FS embed.FS
