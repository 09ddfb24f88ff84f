// Package clustertest runs, for svclab's cluster integration test, a
// Kubernetes control plane on localhost and a stand-in for the kubelets of
// its nodes.
//
// What is real: etcd (go.etcd.io/etcd/server/v3), kube-apiserver and
// Kubernetes' Job controller (k8s.io/kubernetes/pkg/controller/job), all
// built by `make controlplane` into bin/ from the modules .ci/controlplane
// pins, each started as its own process with its own certificates, ports
// and data directory under a directory the caller removes.
//
// What is a stand-in (NodeAgent): no kubelet, container runtime or
// scheduler runs. The agent registers Nodes with the pools' labels, binds
// each pending pod to one of them (honouring only the pod's nodeSelector
// and its required pod anti-affinity by hostname, as svclab's Jobs use
// them), runs the pod's one container as a local process (its command
// resolved to a svclab binary, its env with the downward API fields the
// Jobs use, in a private mount namespace with a tmpfs where the image
// would have its writable /work), writes the pod's status as a kubelet
// would (Running, then Succeeded or Failed with the exit code) and serves
// the kubelet's containerLogs endpoint over TLS, so kube-apiserver's
// pods/log reads the process's output as it reads a kubelet's.
package clustertest
