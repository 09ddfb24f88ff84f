package clustertest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Binaries are the control plane's programs, as `make controlplane` puts
// them in bin/.
var Binaries = []string{"etcd", "kube-apiserver", "job-controller"}

// ControlPlane is etcd, kube-apiserver and the Job controller running on
// 127.0.0.1 for one test.
type ControlPlane struct {
	// Kubeconfig is a kubeconfig file of the cluster's admin (group
	// system:masters).
	Kubeconfig string
	// Client is the admin's client.
	Client kubernetes.Interface
	// Config is the admin's client configuration.
	Config *rest.Config

	dir   string
	ca    *authority
	procs []*process
}

// Missing says which of Binaries binDir lacks (nil: none).
func Missing(binDir string) error {
	var missing []string
	for _, b := range Binaries {
		if _, err := os.Stat(filepath.Join(binDir, b)); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s lacks %v: `make controlplane` builds them (over an hour cold on 2 cores; make test-controlplane builds them and runs the test)", binDir, missing)
	}
	return nil
}

// Start starts etcd, kube-apiserver and the Job controller from binDir,
// with everything they write under dir, and waits until the API server is
// ready. Stop ends them; the caller removes dir.
func Start(ctx context.Context, binDir, dir string) (*ControlPlane, error) {
	if err := Missing(binDir); err != nil {
		return nil, err
	}
	cp := &ControlPlane{dir: dir}
	if err := cp.start3(ctx, binDir); err != nil {
		_ = cp.Stop() // err has the log of a process that exited
		return nil, err
	}
	return cp, nil
}

// start3 starts the three processes in turn.
func (cp *ControlPlane) start3(ctx context.Context, binDir string) (err error) {
	if cp.ca, err = newAuthority(cp.dir); err != nil {
		return err
	}
	etcdURL, err := cp.startEtcd(binDir)
	if err != nil {
		return err
	}
	port, err := cp.startAPIServer(binDir, etcdURL)
	if err != nil {
		return err
	}
	if err := cp.writeKubeconfig(port); err != nil {
		return err
	}
	if err := cp.waitReady(ctx); err != nil {
		return err
	}
	return cp.start(filepath.Join(binDir, "job-controller"), "job-controller", "--kubeconfig", cp.Kubeconfig).err
}

func (cp *ControlPlane) startEtcd(binDir string) (string, error) {
	ports, err := freePorts(2)
	if err != nil {
		return "", err
	}
	client, peer := "http://127.0.0.1:"+ports[0], "http://127.0.0.1:"+ports[1]
	p := cp.start(filepath.Join(binDir, "etcd"), "etcd",
		"--name", "svclab-test", "--data-dir", filepath.Join(cp.dir, "etcd"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "svclab-test="+peer, "--log-level", "warn")
	return client, p.err
}

// startAPIServer starts kube-apiserver on a free port of 127.0.0.1,
// trusting client certificates of the test's CA, storing in etcdURL, and
// reaching the kubelets (the NodeAgent) with a client certificate, checking
// theirs against the CA.
func (cp *ControlPlane) startAPIServer(binDir, etcdURL string) (string, error) {
	ports, err := freePorts(1)
	if err != nil {
		return "", err
	}
	serving, err := cp.ca.issue(cp.dir, "apiserver", pkix.Name{CommonName: "kube-apiserver"}, net.IPv4(127, 0, 0, 1))
	if err != nil {
		return "", err
	}
	kubeletClient, err := cp.ca.issue(cp.dir, "apiserver-kubelet-client", pkix.Name{CommonName: "kube-apiserver-kubelet-client", Organization: []string{"system:masters"}})
	if err != nil {
		return "", err
	}
	saKey := filepath.Join(cp.dir, "sa.key")
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	if err := writeKey(saKey, key); err != nil {
		return "", err
	}
	saPub := filepath.Join(cp.dir, "sa.pub")
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", err
	}
	if err := writePEM(saPub, "PUBLIC KEY", pub); err != nil {
		return "", err
	}
	p := cp.start(filepath.Join(binDir, "kube-apiserver"), "kube-apiserver",
		// No Service "kubernetes" endpoints: a loopback address may not be one.
		"--endpoint-reconciler-type", "none",
		// As kubeadm and managed clusters set it (the default is false): the
		// cells' pods are privileged.
		"--allow-privileged=true",
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", ports[0],
		"--etcd-servers", etcdURL,
		"--tls-cert-file", serving.certFile, "--tls-private-key-file", serving.keyFile,
		"--client-ca-file", cp.ca.certFile, "--authorization-mode", "Node,RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc", "--service-account-key-file", saPub,
		"--service-account-signing-key-file", saKey, "--service-cluster-ip-range", "10.96.0.0/16",
		"--kubelet-client-certificate", kubeletClient.certFile, "--kubelet-client-key", kubeletClient.keyFile,
		"--kubelet-certificate-authority", cp.ca.certFile, "--kubelet-preferred-address-types", "InternalIP",
		"--cert-dir", filepath.Join(cp.dir, "apiserver-certs"))
	return ports[0], p.err
}

// writeKubeconfig writes the admin's kubeconfig and makes its client.
func (cp *ControlPlane) writeKubeconfig(port string) error {
	admin, err := cp.ca.issue(cp.dir, "admin", pkix.Name{CommonName: "svclab-test-admin", Organization: []string{"system:masters"}})
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:" + port, CertificateAuthority: cp.ca.certFile}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificate: admin.certFile, ClientKey: admin.keyFile}
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "admin"}
	cfg.CurrentContext = "test"
	cp.Kubeconfig = filepath.Join(cp.dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, cp.Kubeconfig); err != nil {
		return fmt.Errorf("write %s: %w", cp.Kubeconfig, err)
	}
	if cp.Config, err = clientcmd.BuildConfigFromFlags("", cp.Kubeconfig); err != nil {
		return fmt.Errorf("%s: %w", cp.Kubeconfig, err)
	}
	cp.Client, err = kubernetes.NewForConfig(cp.Config)
	return err
}

// waitReady polls /readyz until it answers ok, a process exits, or two
// minutes pass (a loaded 2-core machine is slow to bootstrap).
func (cp *ControlPlane) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(2 * time.Minute)
	var last error
	for time.Now().Before(deadline) {
		for _, p := range cp.procs {
			if p.exited() {
				return fmt.Errorf("%s exited before the API server was ready: %s", p.name, p.tail())
			}
		}
		body, err := cp.Client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) == "ok" {
			return nil
		}
		last = fmt.Errorf("readyz: %q %v", body, err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("the API server was not ready in two minutes (%w); its log: %s", last, cp.procs[len(cp.procs)-1].tail())
}

// Stop ends the processes, the last started first, and says what any of
// them logged when it did not end cleanly.
func (cp *ControlPlane) Stop() error {
	var errs []error
	for i := len(cp.procs) - 1; i >= 0; i-- {
		if err := cp.procs[i].stop(); err != nil {
			errs = append(errs, err)
		}
	}
	cp.procs = nil
	return errors.Join(errs...)
}

// Log returns the end of a process's log (etcd, kube-apiserver,
// job-controller), for a failing test's message.
func (cp *ControlPlane) Log(name string) string {
	for _, p := range cp.procs {
		if p.name == name {
			return p.tail()
		}
	}
	return ""
}

// freePorts finds n free TCP ports of 127.0.0.1 (a port may be taken again
// before the process binds it; the test then fails and says so).
func freePorts(n int) ([]string, error) {
	var ports []string
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	return ports, nil
}
