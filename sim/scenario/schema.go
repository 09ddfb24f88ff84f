package scenario

// file is the YAML shape of a scenario file, private to this package:
// everything else reads the typed, defaulted, validated Scenario. Field
// names are the YAML keys.
type file struct {
	Name        string      `yaml:"name"`
	Description string      `yaml:"description"`
	Cluster     clusterSpec `yaml:"cluster"`
	Services    []service   `yaml:"services"`
	Synthetic   *synthetic  `yaml:"synthetic"`
	// Placement puts the explicit services first, middle, last or at an
	// index among the synthetic ones in KUBE-SERVICES (default first).
	Placement string        `yaml:"placement"`
	Fairness  *fairnessSpec `yaml:"fairness"`
	Sweep     *sweepSpec    `yaml:"sweep"`
}

// clusterSpec holds cluster-wide settings.
type clusterSpec struct {
	ClusterCIDR   string `yaml:"clusterCIDR"`
	ServiceCIDR   string `yaml:"serviceCIDR"`
	MasqueradeBit *int   `yaml:"masqueradeBit"`
	PodCIDR       string `yaml:"podCIDR"`
	FillerCIDR    string `yaml:"fillerCIDR"`
}

// service is one explicit service.
type service struct {
	Namespace              string     `yaml:"namespace"`
	Name                   string     `yaml:"name"`
	Type                   string     `yaml:"type"`
	ClusterIP              string     `yaml:"clusterIP"`
	SessionAffinity        string     `yaml:"sessionAffinity"`
	SessionAffinityTimeout int        `yaml:"sessionAffinityTimeout"`
	Ports                  []port     `yaml:"ports"`
	Endpoints              []endpoint `yaml:"endpoints"`
}

// port is one service port.
type port struct {
	Name       string `yaml:"name"`
	Protocol   string `yaml:"protocol"`
	Port       int    `yaml:"port"`
	TargetPort int    `yaml:"targetPort"`
	NodePort   int    `yaml:"nodePort"`
}

// endpoint is an endpoint: a bare IP, or a mapping with ip, ready and node.
type endpoint struct {
	IP    string `yaml:"ip"`
	Ready *bool  `yaml:"ready"`
	Node  string `yaml:"node"`
}

// synthetic asks for generated filler services.
type synthetic struct {
	Services            int    `yaml:"services"`
	EndpointsPerService int    `yaml:"endpointsPerService"`
	Seed                uint64 `yaml:"seed"`
}

// fairnessSpec configures a fairness run: new connections to each explicit
// service, counted per endpoint by the servers and by the kernel.
type fairnessSpec struct {
	Dataplanes      []string `yaml:"dataplanes"`
	Connections     int      `yaml:"connections"`
	Concurrency     int      `yaml:"concurrency"`
	Rate            float64  `yaml:"rate"`
	Mode            string   `yaml:"mode"`
	RequestsPerConn int      `yaml:"requestsPerConn"`
	ClientOnNode    bool     `yaml:"clientOnNode"`
	// Scheduler is the IPVS scheduler (rr, wrr, lc, sh, mh); default rr.
	Scheduler string `yaml:"scheduler"`
}

// sweepSpec configures a scaling sweep.
type sweepSpec struct {
	Services            []int    `yaml:"services"`
	EndpointsPerService int      `yaml:"endpointsPerService"`
	Dataplanes          []string `yaml:"dataplanes"`
	Positions           []string `yaml:"positions"`
	Connections         int      `yaml:"connections"`
	Warmup              int      `yaml:"warmup"`
	Repetitions         int      `yaml:"repetitions"`
	Concurrency         int      `yaml:"concurrency"`
	PacketRate          bool     `yaml:"packetRate"`
	Seed                uint64   `yaml:"seed"`
	// MaxServices caps the service count per dataplane (e.g. nft -f of
	// kube-proxy's script grows superlinearly; see the README).
	MaxServices map[string]int `yaml:"maxServices"`
	// SyncLimit: kube-proxy-style full syncs are timed up to this many
	// services per dataplane; above it the rules are loaded the fastest
	// equivalent way and sync_full_s is not measured.
	SyncLimit map[string]int `yaml:"syncLimit"`
	// IncrementalLimit does the same for incremental syncs (kube-proxy's
	// partial iptables-restore also uses --noflush).
	IncrementalLimit map[string]int `yaml:"incrementalLimit"`
	// ThroughputConnections is the batch size for conn/s and CPU per
	// connection (default 2000).
	ThroughputConnections int `yaml:"throughputConnections"`
	// Scheduler is the IPVS scheduler; default rr.
	Scheduler string `yaml:"scheduler"`
	// SyncEachRepetition reloads the rules in every repetition, so full and
	// incremental sync times get one sample per repetition (for compare
	// and gate) instead of one per point.
	SyncEachRepetition bool `yaml:"syncEachRepetition"`
}
