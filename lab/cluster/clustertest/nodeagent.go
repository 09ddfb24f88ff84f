package clustertest

import (
	"context"
	"crypto/tls"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Pool is a node pool the agent registers: Nodes nodes named
// NAME-node-1…, labelled with Labels (and kubernetes.io/hostname).
type Pool struct {
	Name   string
	Labels map[string]string
	Nodes  int
}

// AgentConfig says what the NodeAgent registers and how it runs pods.
type AgentConfig struct {
	Pools []Pool
	// Commands maps a container's command (its first word) to the local
	// program that stands in for the image's.
	Commands map[string]string
	// Writable is a top-level directory (e.g. /work) that each pod gets as
	// an empty tmpfs, as the image's writable directory: the pod's root is
	// this machine's, bound read-write, with Writable replaced.
	Writable string
	// Image, when set, runs each pod's container in this image with podman
	// (podmanCommand) instead of as a local process: Commands and Writable
	// are then unused.
	Image string
	// Dir holds the pods' logs and roots; the caller removes it.
	Dir string
	// Progress, if set, gets a line per binding, start and end of a pod.
	Progress io.Writer
}

// NodeAgent stands in for the kubelets (and the scheduler) of the pools'
// nodes: see the package doc for what it does and does not do.
type NodeAgent struct {
	client kubernetes.Interface
	cfg    AgentConfig
	nodes  map[string]*corev1.Node
	server *http.Server
	port   int
	cancel context.CancelFunc
	done   chan struct{}

	mu sync.Mutex
	// pods are the pods the agent started, by UID.
	pods map[string]*podRun
	// logs are the pods' log files, by namespace/name.
	logs map[string]logEntry
}

// StartNodeAgent serves the kubelet log endpoint, registers the pools'
// Nodes and starts binding and running pods. Stop ends it.
func StartNodeAgent(ctx context.Context, cp *ControlPlane, cfg AgentConfig) (*NodeAgent, error) {
	if cfg.Image == "" && filepath.Dir(cfg.Writable) != "/" {
		return nil, fmt.Errorf("node agent: Writable %q: want a top-level directory such as /work", cfg.Writable)
	}
	a := &NodeAgent{client: cp.Client, cfg: cfg, nodes: map[string]*corev1.Node{}, pods: map[string]*podRun{}, logs: map[string]logEntry{}, done: make(chan struct{})}
	if cfg.Image != "" {
		if err := a.writePodmanConf(); err != nil {
			return nil, err
		}
	}
	if err := a.serveLogs(cp.ca); err != nil {
		return nil, err
	}
	if err := a.registerNodes(ctx); err != nil {
		a.server.Close()
		return nil, err
	}
	loopCtx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	go a.loop(loopCtx)
	return a, nil
}

// serveLogs listens on a free port of 127.0.0.1 with a certificate of the
// control plane's CA (kube-apiserver checks it) and serves GET
// /containerLogs/NAMESPACE/POD/CONTAINER, the kubelet endpoint behind
// pods/log.
func (a *NodeAgent) serveLogs(ca *authority) error {
	kp, err := ca.issue(a.cfg.Dir, "node-agent", pkix.Name{CommonName: "svclab-node-agent"}, net.IPv4(127, 0, 0, 1))
	if err != nil {
		return err
	}
	cert, err := tls.LoadX509KeyPair(kp.certFile, kp.keyFile)
	if err != nil {
		return fmt.Errorf("node agent certificate: %w", err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return fmt.Errorf("node agent: listen: %w", err)
	}
	a.port = l.Addr().(*net.TCPAddr).Port
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", a.containerLogs)
	a.server = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = a.server.Serve(l) }()
	return nil
}

func (a *NodeAgent) containerLogs(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("namespace") + "/" + r.PathValue("pod")
	a.mu.Lock()
	entry, ok := a.logs[key]
	a.mu.Unlock()
	if !ok || entry.container != r.PathValue("container") {
		http.Error(w, "no container "+r.PathValue("container")+" of pod "+key+" on this node agent", http.StatusNotFound)
		return
	}
	f, err := os.Open(entry.file)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "text/plain")
	_, _ = io.Copy(w, f)
}

// registerNodes creates each pool's Nodes, Ready, at 127.0.0.1 with the
// agent's port as their kubelet endpoint.
func (a *NodeAgent) registerNodes(ctx context.Context) error {
	for _, p := range a.cfg.Pools {
		for i := 1; i <= p.Nodes; i++ {
			name := fmt.Sprintf("%s-node-%d", p.Name, i)
			labels := map[string]string{corev1.LabelHostname: name, corev1.LabelOSStable: "linux"}
			for k, v := range p.Labels {
				labels[k] = v
			}
			n, err := a.client.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("node agent: create Node %s: %w", name, err)
			}
			n.Status = corev1.NodeStatus{
				Conditions:      []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "svclab node agent (a stand-in, not a kubelet)", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
				Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}, {Type: corev1.NodeHostName, Address: name}},
				DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(a.port)}},
				NodeInfo:        corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: "amd64", KubeletVersion: "svclab-node-agent"},
			}
			if n, err = a.client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("node agent: Node %s status: %w", name, err)
			}
			a.nodes[name] = n
		}
	}
	return nil
}

// loop binds pending pods and runs, ends and deletes the nodes' pods, every
// 100 ms until Stop.
func (a *NodeAgent) loop(ctx context.Context) {
	defer close(a.done)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if err := a.sync(ctx); err != nil && ctx.Err() == nil {
			a.logf("sync: %v", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sync is one round: list every pod, bind the unbound, start the new ones
// of the agent's nodes, and finish the deleted ones.
func (a *NodeAgent) sync(ctx context.Context) error {
	list, err := a.client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list pods: %w", err)
	}
	var errs []error
	for i := range list.Items {
		p := &list.Items[i]
		switch {
		case p.Spec.NodeName == "" && p.DeletionTimestamp == nil:
			errs = append(errs, a.bind(ctx, p, list.Items))
		case a.nodes[p.Spec.NodeName] == nil:
		case p.DeletionTimestamp != nil:
			errs = append(errs, a.terminate(ctx, p))
		case p.Status.Phase == corev1.PodPending:
			errs = append(errs, a.startPod(ctx, p))
		}
	}
	return errors.Join(errs...)
}

// Stop stops the loop, kills the pods' processes that still run and closes
// the log endpoint.
func (a *NodeAgent) Stop() {
	a.cancel()
	<-a.done
	a.mu.Lock()
	runs := make([]*podRun, 0, len(a.pods))
	for _, r := range a.pods {
		runs = append(runs, r)
	}
	a.mu.Unlock()
	for _, r := range runs {
		r.kill()
	}
	a.removeContainers()
	_ = a.server.Close()
}

func (a *NodeAgent) logf(format string, args ...any) {
	if a.cfg.Progress != nil {
		fmt.Fprintf(a.cfg.Progress, "node agent: "+format+"\n", args...)
	}
}
