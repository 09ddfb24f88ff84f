// Package session keeps track of what svclab leaves on the host between
// commands: the labs `svclab up` leaves running (their state files and the
// daemon that serves them, started by StartUp and stopped by Down), the
// run leases (AcquireRun; Done ends one once nothing of the run is left), and
// `svclab cleanup` (Cleanup), which removes what runs whose owner died left
// behind.
//
// The daemon's own work, building and programming the lab, is the
// runner's (runner.ServeUp); this package only starts, records and stops it.
package session
