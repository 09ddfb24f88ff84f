package scenario

// timelineSpec is the YAML shape of a scenario's timeline: events at given
// times while traffic runs, observed for a window (see timeline_reference.go
// for what each field means, its default and its limits). Durations are
// written as Go durations ("5s", "1m30s", "250ms").
type timelineSpec struct {
	Duration      string          `yaml:"duration"`
	Dataplanes    []string        `yaml:"dataplanes"`
	MinSyncPeriod string          `yaml:"minSyncPeriod"`
	SyncPeriod    string          `yaml:"syncPeriod"`
	Traffic       []trafficSpec   `yaml:"traffic"`
	Events        []timelineEvent `yaml:"events"`
}

// trafficSpec is one traffic generator that runs through the whole window.
type trafficSpec struct {
	Protocol   string `yaml:"protocol"`
	Service    string `yaml:"service"`
	Port       *int   `yaml:"port"`
	Rate       *int   `yaml:"rate"`
	From       string `yaml:"from"`
	SourcePort *int   `yaml:"sourcePort"`
	Timeout    string `yaml:"timeout"`
}

// timelineEvent is one event: at a time, exactly one of the kinds.
type timelineEvent struct {
	At               string          `yaml:"at"`
	Scale            *scaleEvent     `yaml:"scale"`
	RollingUpdate    *rollingEvent   `yaml:"rollingUpdate"`
	CreateServices   *stormEvent     `yaml:"createServices"`
	DeleteServices   *deleteEvent    `yaml:"deleteServices"`
	ChangeService    *changeEvent    `yaml:"changeService"`
	RestartKubeProxy *restartEvent   `yaml:"restartKubeProxy"`
	DeletePod        *deletePodEvent `yaml:"deletePod"`
	Comment          string          `yaml:"comment"`
}

// scaleEvent sets a service's endpoint count.
type scaleEvent struct {
	Service  string `yaml:"service"`
	Replicas *int   `yaml:"replicas"`
}

// rollingEvent replaces a service's endpoints one by one.
type rollingEvent struct {
	Service  string `yaml:"service"`
	Interval string `yaml:"interval"`
	Overlap  string `yaml:"overlap"`
}

// stormEvent creates services spread evenly over a time.
type stormEvent struct {
	Count *int   `yaml:"count"`
	Over  string `yaml:"over"`
}

// deleteEvent deletes one named service, or the newest count services.
type deleteEvent struct {
	Service string `yaml:"service"`
	Count   *int   `yaml:"count"`
	Over    string `yaml:"over"`
}

// changeEvent changes a service's ports or session affinity.
type changeEvent struct {
	Service         string `yaml:"service"`
	Ports           []port `yaml:"ports"`
	SessionAffinity string `yaml:"sessionAffinity"`
}

// restartEvent restarts kube-proxy.
type restartEvent struct {
	Fresh bool `yaml:"fresh"`
}

// deletePodEvent deletes the pod of an endpoint address.
type deletePodEvent struct {
	IP    string `yaml:"ip"`
	Grace string `yaml:"grace"`
}
