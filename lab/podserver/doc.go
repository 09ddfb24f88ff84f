// Package podserver runs the backend pods' servers inside their network
// namespaces, all from the svclab process itself.
//
// Each listening socket is opened on a locked OS thread that sits in the pod's
// namespace, so the socket belongs to that namespace for its whole life; it is
// then served from ordinary goroutines. One listener answers both plain TCP
// connects and HTTP/1.1 (with keep-alive): the first line of every HTTP body
// is the pod's name, followed by the remote address and the local address the
// client reached. Servers count accepted connections and HTTP requests.
package podserver
