package ebpf

// The seam's method set (lab/apply/seam.go's Dataplane, mirrored by the
// dataplane interface in fixture_linux_test.go) is what both types offer;
// when the seam lands this becomes apply.Dataplane.
var (
	_ dataplane = (*TC)(nil)
	_ dataplane = (*Sock)(nil)
)
