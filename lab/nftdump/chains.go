package nftdump

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/svclab/svclab/sim/dataplane"
	"github.com/svclab/svclab/sim/model"
	"github.com/svclab/svclab/sim/route"
)

// chainsPayload is nft input that creates the table and the chains (only:
// its chain commands, kube-proxy's dance of adding and deleting a base
// chain included) of svclab's nftables ruleset for services synthetic
// Services with one endpoint each, and the number of chains it leaves: the
// chain names, and so the chains a dump message holds, are kube-proxy's.
func chainsPayload(services int) ([]byte, int, error) {
	gen, err := model.NewGenerator(model.GeneratorConfig{Services: services, EndpointsPerService: 1, Seed: 1})
	if err != nil {
		return nil, 0, fmt.Errorf("chains of %d synthetic services: %w", services, err)
	}
	var ruleset bytes.Buffer
	mdl := &model.Model{Cluster: model.DefaultCluster(), Services: gen}
	if _, err := route.Render(&ruleset, mdl, route.Config{Mode: dataplane.ModeNFTables}); err != nil {
		return nil, 0, fmt.Errorf("render the nftables ruleset of %d synthetic services: %w", services, err)
	}
	var out bytes.Buffer
	chains := 0
	lines := bufio.NewScanner(&ruleset)
	lines.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for lines.Scan() {
		line := lines.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("add table ")), bytes.HasPrefix(line, []byte("flush chain ")):
		case bytes.HasPrefix(line, []byte("add chain ")):
			chains++
		case bytes.HasPrefix(line, []byte("delete chain ")):
			chains--
		default:
			continue
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if err := lines.Err(); err != nil {
		return nil, 0, fmt.Errorf("read the nftables ruleset of %d synthetic services: %w", services, err)
	}
	return out.Bytes(), chains, nil
}

// paddingPayloads are nft input that creates a table of padding chains
// and that deletes every every-th of them again, leaving a tenth more free
// slots than chains: the deleted chains' slots stay free on slab pages
// still in use (32/every of each page's 32), and the next table's chains
// fill them first.
func paddingPayloads(chains, every int) (create, punch []byte) {
	n := chains * every * 11 / 10
	var c, p bytes.Buffer
	c.WriteString("add table ip " + paddingTable + "\n")
	for i := range n {
		fmt.Fprintf(&c, "add chain ip %s p%d\n", paddingTable, i)
		if i%every == 0 {
			fmt.Fprintf(&p, "delete chain ip %s p%d\n", paddingTable, i)
		}
	}
	return c.Bytes(), p.Bytes()
}

// paddingTable is the padding table's name.
const paddingTable = "svlpad"
