package apicheck

// Where names the field of a Service (or of its endpoints) a Problem is
// about; Index says which port, clusterIP or endpoint.
type Where int

// The fields the checks look at.
const (
	AtNamespace    Where = iota // metadata.namespace
	AtName                      // metadata.name
	AtClusterIP                 // spec.clusterIPs[Index]
	AtPortName                  // spec.ports[Index].name
	AtPort                      // spec.ports[Index].port
	AtNodePort                  // spec.ports[Index].nodePort
	AtEndpoint                  // the address of endpoint Index
	AtEndpointNode              // the node name of endpoint Index
)

// Problem is one failed check: where, what is wrong, and what to do.
type Problem struct {
	Where Where
	Index int
	Msg   string
	Hint  string
}
