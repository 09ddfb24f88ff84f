package scenario

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/svclab/svclab/sim/model"
)

// WriteMix writes a scenario of services synthetic services shaped by mix
// (what `svclab import --scenario` writes), with a sweep over sweepCounts
// services of that shape on iptables-nft and nftables (none when empty),
// so that svclab render and run accept it. Weights are written as given;
// zero weights are left out.
func WriteMix(w io.Writer, name, description string, services int, seed uint64, mix *model.Mix, sweepCounts []int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\n", safeName(name))
	if description != "" {
		fmt.Fprintf(&b, "description: %s\n", strconv.Quote(description))
	}
	fmt.Fprintf(&b, "synthetic:\n  services: %d\n  seed: %d\n", services, seed)
	if len(mix.Endpoints) == 0 {
		b.WriteString("  endpointsPerService: 0\n")
	}
	b.WriteString("  mix:\n")
	writeWeights(&b, "types", mix.Types, func(t model.ServiceType) string { return string(t) })
	writeWeights(&b, "families", mix.Families, func(f model.FamilyMix) string { return string(f) })
	writeWeights(&b, "endpoints", mix.Endpoints, strconv.Itoa)
	writeWeights(&b, "ports", mix.Ports, strconv.Itoa)
	for _, sh := range []struct {
		key string
		v   float64
	}{{"externalTrafficPolicyLocal", mix.ExternalLocal}, {"internalTrafficPolicyLocal", mix.InternalLocal},
		{"sessionAffinity", mix.Affinity}, {"externalIPs", mix.ExternalIPs},
		{"loadBalancerSourceRanges", mix.SourceRanges}, {"remoteEndpoints", mix.RemoteEndpoints}} {
		if sh.v != 0 {
			fmt.Fprintf(&b, "    %s: %s\n", sh.key, strconv.FormatFloat(sh.v, 'g', 6, 64))
		}
	}
	if len(sweepCounts) > 0 {
		parts := make([]string, len(sweepCounts))
		for i, n := range sweepCounts {
			parts[i] = strconv.Itoa(n)
		}
		fmt.Fprintf(&b, "sweep:\n  services: [%s]\n  dataplanes: [iptables-nft, nftables]\n", strings.Join(parts, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeWeights[T any](b *strings.Builder, key string, ws []model.Weighted[T], str func(T) string) {
	var parts []string
	for _, w := range ws {
		if w.Weight > 0 {
			parts = append(parts, str(w.Value)+": "+strconv.FormatFloat(w.Weight, 'g', -1, 64))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(b, "    %s: {%s}\n", key, strings.Join(parts, ", "))
	}
}
