package scenario

// file is the YAML shape of a scenario file, private to this package:
// everything else reads the typed, defaulted, validated Scenario. Field
// names are the YAML keys; what each means, its default and its limits are
// in the reference table (reference.go). A pointer distinguishes a field
// that is absent (the default applies) from one set to zero (which must be
// valid as written).
type file struct {
	Name        string        `yaml:"name"`
	Description string        `yaml:"description"`
	Cluster     clusterSpec   `yaml:"cluster"`
	Services    []service     `yaml:"services"`
	Synthetic   *synthetic    `yaml:"synthetic"`
	Placement   string        `yaml:"placement"`
	Fairness    *fairnessSpec `yaml:"fairness"`
	Sweep       *sweepSpec    `yaml:"sweep"`
	Lab         labSpec       `yaml:"lab"`
	KubeProxy   kubeProxySpec `yaml:"kubeProxy"`
	Timeline    *timelineSpec `yaml:"timeline"`
	Gate        []gateRule    `yaml:"gate"`

	// loaded are the Kubernetes objects of cluster.objects, or of the file
	// itself when it is a file of objects.
	loaded *loadedObjects `yaml:"-"`
}

// kubeProxySpec says whose code writes the rules and which release's.
type kubeProxySpec struct {
	Engine             string   `yaml:"engine"`
	Version            string   `yaml:"version"`
	MasqueradeAll      bool     `yaml:"masqueradeAll"`
	NodePortAddresses  []string `yaml:"nodePortAddresses"`
	LocalhostNodePorts *bool    `yaml:"localhostNodePorts"`
	// FeatureGates is kube-proxy's --feature-gates, gate → on.
	FeatureGates map[string]bool `yaml:"featureGates"`
}

// clusterSpec holds cluster-wide settings.
type clusterSpec struct {
	ClusterCIDR   string `yaml:"clusterCIDR"`
	ServiceCIDR   string `yaml:"serviceCIDR"`
	ClusterCIDRv6 string `yaml:"clusterCIDRv6"`
	ServiceCIDRv6 string `yaml:"serviceCIDRv6"`
	MasqueradeBit *int   `yaml:"masqueradeBit"`
	PodCIDR       string `yaml:"podCIDR"`
	FillerCIDR    string `yaml:"fillerCIDR"`
	Objects       string `yaml:"objects"`
	NodeName      string `yaml:"nodeName"`
}

// service is one explicit service.
type service struct {
	Namespace              string     `yaml:"namespace"`
	Name                   string     `yaml:"name"`
	Type                   string     `yaml:"type"`
	ClusterIP              string     `yaml:"clusterIP"`
	SessionAffinity        string     `yaml:"sessionAffinity"`
	SessionAffinityTimeout *int       `yaml:"sessionAffinityTimeout"`
	Ports                  []port     `yaml:"ports"`
	Endpoints              []endpoint `yaml:"endpoints"`
}

// port is one service port.
type port struct {
	Name       string `yaml:"name"`
	Protocol   string `yaml:"protocol"`
	Port       int    `yaml:"port"`
	TargetPort *int   `yaml:"targetPort"`
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
	Services            int      `yaml:"services"`
	EndpointsPerService int      `yaml:"endpointsPerService"`
	Seed                uint64   `yaml:"seed"`
	Mix                 *mixSpec `yaml:"mix"`
}

// mixSpec shapes the synthetic services (model.Mix): weights by type,
// family, endpoint and port count, and shares of features.
type mixSpec struct {
	Types                      map[string]float64 `yaml:"types"`
	Families                   map[string]float64 `yaml:"families"`
	Endpoints                  map[int]float64    `yaml:"endpoints"`
	Ports                      map[int]float64    `yaml:"ports"`
	ExternalTrafficPolicyLocal float64            `yaml:"externalTrafficPolicyLocal"`
	InternalTrafficPolicyLocal float64            `yaml:"internalTrafficPolicyLocal"`
	SessionAffinity            float64            `yaml:"sessionAffinity"`
	ExternalIPs                float64            `yaml:"externalIPs"`
	LoadBalancerSourceRanges   float64            `yaml:"loadBalancerSourceRanges"`
	RemoteEndpoints            float64            `yaml:"remoteEndpoints"`
}

// fairnessSpec configures a fairness run.
type fairnessSpec struct {
	Dataplanes      []string `yaml:"dataplanes"`
	Connections     *int     `yaml:"connections"`
	Concurrency     *int     `yaml:"concurrency"`
	Rate            float64  `yaml:"rate"`
	Mode            string   `yaml:"mode"`
	RequestsPerConn *int     `yaml:"requestsPerConn"`
	ClientOnNode    bool     `yaml:"clientOnNode"`
	Scheduler       string   `yaml:"scheduler"`
	// From, Target and Family say where the connections start, which of
	// a service's addresses they go to, and in which family (see
	// fairness_paths.go).
	From   string `yaml:"from"`
	Target string `yaml:"target"`
	Family string `yaml:"family"`
}

// sweepSpec configures a scaling sweep.
type sweepSpec struct {
	Services              []int          `yaml:"services"`
	EndpointsPerService   *int           `yaml:"endpointsPerService"`
	Dataplanes            []string       `yaml:"dataplanes"`
	Positions             []string       `yaml:"positions"`
	Connections           *int           `yaml:"connections"`
	Warmup                *int           `yaml:"warmup"`
	Repetitions           *int           `yaml:"repetitions"`
	Concurrency           *int           `yaml:"concurrency"`
	PacketRate            bool           `yaml:"packetRate"`
	Seed                  uint64         `yaml:"seed"`
	MaxServices           map[string]int `yaml:"maxServices"`
	SyncLimit             map[string]int `yaml:"syncLimit"`
	IncrementalLimit      map[string]int `yaml:"incrementalLimit"`
	ThroughputConnections *int           `yaml:"throughputConnections"`
	Scheduler             string         `yaml:"scheduler"`
	SyncEachRepetition    bool           `yaml:"syncEachRepetition"`
	WalkProbe             []int          `yaml:"walkProbe"`
	WalkProbeReload       *bool          `yaml:"walkProbeReload"`
	AddrTypeProbe         []int          `yaml:"addrTypeProbe"`
	RecentProbe           int            `yaml:"recentProbe"`
	SyncProbe             []int          `yaml:"syncProbe"`
	LookupProbe           []int          `yaml:"lookupProbe"`
	IncrementalBatch      int            `yaml:"incrementalBatch"`
	IncrementalBatchKind  string         `yaml:"incrementalBatchKind"`
	ProbeCPU              *int           `yaml:"probeCPU"`
}

// labSpec holds settings for the lab a run builds.
type labSpec struct {
	AllowLargeLabs bool `yaml:"allowLargeLabs"`
}

// gateRule is one primary comparison of an A/B run (svclab ab).
type gateRule struct {
	Metric    string   `yaml:"metric"`
	Threshold *float64 `yaml:"threshold"`
	Services  int      `yaml:"services"`
}
