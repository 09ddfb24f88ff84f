package migrateverify

import (
	"fmt"
	"os"

	"github.com/svclab/svclab/lab/lease"
)

// labs is the lease every lab of this process holds while it lives:
// svl-mv-<pid>, which names all of them, so `svclab cleanup` removes what
// a killed run left.
var labs = lease.Shared{Prefix: fmt.Sprintf("svl-mv-%d", os.Getpid()), Kind: lease.KindMigrateVerify}
