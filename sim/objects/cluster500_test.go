package objects

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/svclab/svclab/sim/golden"
)

// cluster500 generates testdata/cluster-500.yaml: 500 services mixing
// every feature kube-proxy reads (every type, headless, dual-stack and
// IPv6, external and load-balancer IPs, source ranges, both traffic
// policies, health-check node ports, affinity, traffic distribution, named
// target ports, several slices per service of both address types, not
// ready, terminating and hinted endpoints, addresses with leading zeros),
// three Nodes in two zones and a few objects of other kinds.
func cluster500() []any {
	rng := rand.New(rand.NewPCG(500, 13))
	var svcs, slices []any
	for i := 0; i < 500; i++ {
		s, ss := genService(rng, i)
		svcs = append(svcs, s)
		slices = append(slices, ss...)
	}
	out := append(svcs, slices...)
	for n := 1; n <= 3; n++ {
		out = append(out, &corev1.Node{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", n), Labels: map[string]string{corev1.LabelTopologyZone: fmt.Sprintf("zone-%c", 'a'+n%2)}},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("192.168.0.%d", n)},
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("fd00:192:168::%d", n)},
				{Type: corev1.NodeHostName, Address: fmt.Sprintf("node-%d", n)},
			}},
		})
	}
	out = append(out, &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-proxy"}})
	return out
}

func pick[T any](rng *rand.Rand, vs ...T) T { return vs[rng.IntN(len(vs))] }

func genService(rng *rand.Rand, i int) (*corev1.Service, []any) {
	ns := fmt.Sprintf("team-%d", i%17)
	name := fmt.Sprintf("app-%d", i)
	s := &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name}}}
	sp := &s.Spec
	sp.Selector = map[string]string{"app": name}
	sp.Type = pick(rng, corev1.ServiceTypeClusterIP, corev1.ServiceTypeClusterIP, corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer)
	fam := pick(rng, "v4", "v4", "v4", "v4", "v6", "dual")
	v4 := fmt.Sprintf("10.96.%d.%d", i/250, i%250+1)
	if i%7 == 3 {
		v4 = fmt.Sprintf("10.96.%03d.%03d", i/250, i%250+1) // kube-proxy parses leading zeros as decimal
	}
	v6 := fmt.Sprintf("fd00:10:96::%x", i+1)
	switch {
	case i%50 == 7:
		sp.Type = corev1.ServiceTypeExternalName
		sp.ExternalName = fmt.Sprintf("db-%d.example.com", i)
	case i%40 == 5:
		sp.ClusterIP = corev1.ClusterIPNone // headless
	case fam == "v6":
		sp.ClusterIP = v6
	case fam == "dual":
		sp.ClusterIPs = []string{v4, v6}
		pol := corev1.IPFamilyPolicyPreferDualStack
		sp.IPFamilyPolicy = &pol
	default:
		sp.ClusterIP = v4
	}
	nports := pick(rng, 1, 1, 1, 2, 3)
	named := rng.IntN(3) == 0
	for k := 0; k < nports; k++ {
		p := corev1.ServicePort{Port: int32(80 + k), Protocol: pick(rng, corev1.ProtocolTCP, corev1.ProtocolTCP, corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP)}
		if nports > 1 || rng.IntN(2) == 0 {
			p.Name = fmt.Sprintf("port-%d", k)
		}
		switch {
		case named && p.Name != "":
			p.TargetPort = intstr.FromString(fmt.Sprintf("tgt-%d", k))
		case rng.IntN(2) == 0:
			p.TargetPort = intstr.FromInt32(int32(8080 + k))
		}
		if sp.Type == corev1.ServiceTypeNodePort || sp.Type == corev1.ServiceTypeLoadBalancer {
			p.NodePort = int32(30000 + i*3 + k)
		}
		sp.Ports = append(sp.Ports, p)
	}
	genFeatures(rng, s, i, fam)
	if sp.Type == corev1.ServiceTypeExternalName {
		return s, nil
	}
	return s, genSlices(rng, s, i, fam)
}

func genFeatures(rng *rand.Rand, s *corev1.Service, i int, fam string) {
	sp := &s.Spec
	if sp.Type == corev1.ServiceTypeExternalName {
		return
	}
	if rng.IntN(10) == 0 {
		sp.ExternalIPs = []string{fmt.Sprintf("203.0.%d.%d", 100+i/250, i%250+1)}
		if i%3 == 0 {
			sp.ExternalIPs[0] = fmt.Sprintf("203.0.%d.%03d", 100+i/250, i%250+1)
		}
	}
	if rng.IntN(8) == 0 {
		sp.SessionAffinity = corev1.ServiceAffinityClientIP
		if rng.IntN(2) == 0 {
			t := int32(60 * (1 + rng.IntN(100)))
			sp.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: &t}}
		}
	}
	if rng.IntN(10) == 0 {
		l := corev1.ServiceInternalTrafficPolicyLocal
		sp.InternalTrafficPolicy = &l
	}
	if rng.IntN(12) == 0 {
		td := "PreferClose"
		sp.TrafficDistribution = &td
	}
	accessible := sp.Type != corev1.ServiceTypeClusterIP || len(sp.ExternalIPs) > 0
	if accessible && rng.IntN(3) == 0 {
		sp.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
		if sp.Type == corev1.ServiceTypeLoadBalancer {
			sp.HealthCheckNodePort = int32(32000 + i)
		}
	}
	if sp.Type != corev1.ServiceTypeLoadBalancer {
		return
	}
	ing := corev1.LoadBalancerIngress{IP: fmt.Sprintf("198.51.%d.%d", 100+i/250, i%250+1)}
	if fam == "v6" {
		ing.IP = fmt.Sprintf("2001:db8:1::%x", i+1)
	}
	s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{ing}
	if rng.IntN(6) == 0 {
		proxy := corev1.LoadBalancerIPModeProxy
		s.Status.LoadBalancer.Ingress = append(s.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: fmt.Sprintf("198.18.0.%d", i%250+1), IPMode: &proxy})
	}
	if rng.IntN(2) == 0 {
		sp.LoadBalancerSourceRanges = pick(rng, []string{"192.0.2.0/24"}, []string{" 203.0.113.000/025 ", "198.51.100.0/24"}, []string{"0.0.0.0/0"}, []string{"10.0.0.0/8", "2001:db8::/32"})
	}
}

func genSlices(rng *rand.Rand, s *corev1.Service, i int, fam string) []any {
	var types []discoveryv1.AddressType
	switch fam {
	case "v6":
		types = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv6}
	case "dual":
		types = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6}
	default:
		types = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4}
	}
	n := pick(rng, 0, 1, 1, 2, 2, 2, 3, 3, 5, 8, 12, 40)
	var out []any
	for _, at := range types {
		nslices := 1 + n/25
		for sl := 0; sl < nslices; sl++ {
			es := &discoveryv1.EndpointSlice{TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
				ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: fmt.Sprintf("%s-%c%d", s.Name, 'a'+sl, len(at)),
					Labels: map[string]string{discoveryv1.LabelServiceName: s.Name}},
				AddressType: at}
			for k, p := range s.Spec.Ports {
				name, proto, port := p.Name, p.Protocol, int32(8080+k)
				if p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal != 0 {
					port = p.TargetPort.IntVal
				} else if p.TargetPort.Type == intstr.Int {
					port = p.Port
				}
				es.Ports = append(es.Ports, discoveryv1.EndpointPort{Name: &name, Protocol: &proto, Port: &port})
			}
			for j := sl; j < n; j += nslices {
				es.Endpoints = append(es.Endpoints, genEndpoint(rng, i, j, at))
			}
			out = append(out, es)
		}
	}
	return out
}

func genEndpoint(rng *rand.Rand, i, j int, at discoveryv1.AddressType) discoveryv1.Endpoint {
	addr := fmt.Sprintf("10.%d.%d.%d", 128+i/200, i%200, j+1)
	if at == discoveryv1.AddressTypeIPv6 {
		addr = fmt.Sprintf("fd00:10:244:%x::%x", i, j+1)
	} else if j == 0 && i%11 == 0 {
		addr = fmt.Sprintf("10.%d.%03d.%03d", 128+i/200, i%200, j+1)
	}
	node := fmt.Sprintf("node-%d", 1+rng.IntN(3))
	zone := fmt.Sprintf("zone-%c", 'a'+(node[5]-'0')%2)
	e := discoveryv1.Endpoint{Addresses: []string{addr}, NodeName: &node, Zone: &zone}
	switch rng.IntN(12) {
	case 0:
		f := false
		e.Conditions = discoveryv1.EndpointConditions{Ready: &f, Serving: &f}
	case 1:
		f, t := false, true
		e.Conditions = discoveryv1.EndpointConditions{Ready: &f, Serving: &t, Terminating: &t}
	case 2, 3, 4, 5, 6, 7:
		t := true
		e.Conditions = discoveryv1.EndpointConditions{Ready: &t}
	}
	if rng.IntN(4) == 0 {
		e.Hints = &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: zone}}}
	}
	return e
}

func TestCluster500(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("# 500 services mixing every feature kube-proxy reads; generated by TestCluster500 (go test -run TestCluster500 -update ./sim/objects)\n")
	if err := Encode(&b, cluster500()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/cluster-500.yaml", b.Bytes())
	o, err := Decode("cluster-500.yaml", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	sh := o.Shape("")
	if sh.Services != 500 || sh.Headless == 0 || sh.ExternalNameServices == 0 || sh.Families["DualStack"] == 0 || sh.Families["IPv6"] == 0 ||
		sh.Types["LoadBalancer"] == 0 || sh.ExternalLocal == 0 || sh.InternalLocal == 0 || sh.SourceRanges == 0 || sh.Terminating == 0 || sh.Hinted == 0 {
		t.Errorf("the file lacks a feature: %+v", sh)
	}
	if o.Ignored["ConfigMap"] != 1 {
		t.Errorf("ignored %v", o.Ignored)
	}
}
