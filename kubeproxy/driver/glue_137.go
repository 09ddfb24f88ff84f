//go:build !kp134 && !kp135 && !kp136

package driver

// kubeVersion is go.mod's k8s.io/kubernetes version, for binaries
// without module information (test binaries).
const kubeVersion = "v1.37.2"
