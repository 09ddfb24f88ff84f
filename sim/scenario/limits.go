package scenario

// Limits on scenario files. They are documented in the reference
// (`svclab help scenario`) from the same constants.
const (
	// MaxFileSize is the largest scenario file accepted; larger ones are
	// refused before parsing.
	MaxFileSize = 8 << 20
	// MaxObjectsFileSize is the largest file of Kubernetes objects accepted
	// (a scenario itself, or one that cluster.objects names): a kubectl
	// export of a large cluster is far larger than a scenario. Decoding
	// kubectl's YAML peaks at about 40 bytes of memory per byte of input
	// (JSON about 8), so 32 MiB peaks near 1.3 GB: what a 4 GB CI runner
	// holds (about 20,000 Services with their EndpointSlices in YAML).
	MaxObjectsFileSize = 32 << 20
	// MaxItems bounds lines plus flow-list items (commas) of a file, also
	// checked before parsing: the YAML parser holds a node per item, so a
	// file of 8 MiB of tiny items would take about a gigabyte (500,000 items:
	// measured 195 MB and 1.2 s; a lab of 100,000 explicit endpoints fits).
	MaxItems = 500_000
	// MaxConnections bounds every connection count (fairness, sweep,
	// throughput batches).
	MaxConnections = 10_000_000
	// MaxConcurrency bounds concurrent connections of the lab's client.
	MaxConcurrency = 1024
	// MaxLabPods is the largest number of distinct explicit endpoint IPs:
	// each becomes a pod, i.e. a network namespace with a server, on this
	// machine. More need lab.allowLargeLabs: true.
	MaxLabPods = 2000
	// MaxSweepServices is the largest service count of a sweep point a lab
	// builds without lab.allowLargeLabs: true (the recorded sweeps go to
	// 100,000; each service adds kernel rules and memory).
	MaxSweepServices = 200_000
	// MaxSyntheticServices bounds synthetic.services (and, with
	// lab.allowLargeLabs, sweep points); the service CIDR may hold fewer.
	MaxSyntheticServices = 1_000_000
	// MaxEndpointsPerService bounds synthetic and sweep endpoints per service.
	MaxEndpointsPerService = 1000
	// MaxRate bounds fairness.rate (connections per second).
	MaxRate = 1e6
)

// ClientPodIP is the lab client pod's address (lab/topo's default client
// IP); an endpoint may not use it.
const ClientPodIP = "10.244.255.1"

// intRange is the valid range and the default of an integer field.
type intRange struct{ min, max, def int }
