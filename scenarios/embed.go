// Package scenarios embeds svclab's scenario files, so `svclab run NAME`
// works from any directory. Each *.yaml file here is one scenario; its name
// is the file name without the extension. objects/ holds the Kubernetes
// objects some of them reference (cluster.objects).
package scenarios

import "embed"

// FS holds every scenario file of this directory.
//
//go:embed *.yaml objects/*.yaml
var FS embed.FS
