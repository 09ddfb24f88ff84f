// Command etcd is etcd's own server (go.etcd.io/etcd/server/v3/etcdmain) at
// the version of this directory's go.mod: svclab's control-plane integration
// test stores kube-apiserver's objects in it. Debian 12's etcd-server (3.4.23)
// is older than the etcd versions kube-apiserver 1.31+ supports.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
