package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFromBuild(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name            string
		version, commit string
		bi              *debug.BuildInfo
		want            Info
	}{
		{"no build info", "", "", nil, Info{Version: "dev", Commit: "unknown"}},
		{"devel without vcs", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, Info{Version: "dev", Commit: "unknown"}},
		{"go install @v0.2.0", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, Info{Version: "v0.2.0", Commit: "unknown"}},
		{"vcs clean", "", "", &debug.BuildInfo{Settings: vcs(rev, "false")}, Info{Version: "dev", Commit: "0123456789ab"}},
		{"vcs dirty", "", "", &debug.BuildInfo{Settings: vcs(rev, "true")}, Info{Version: "dev", Commit: "0123456789ab-dirty"}},
		{"stamps win", "v1.0.0", "feedfacecafe", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}, Settings: vcs(rev, "true")},
			Info{Version: "v1.0.0", Commit: "feedfacecafe"}},
		{"go version from build info", "", "", &debug.BuildInfo{GoVersion: "go1.99.1"}, Info{Version: "dev", Commit: "unknown", GoVersion: "go1.99.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fromBuild(tt.version, tt.commit, tt.bi)
			want := tt.want
			if want.GoVersion == "" {
				want.GoVersion = runtime.Version()
			}
			want.Platform = runtime.GOOS + "/" + runtime.GOARCH
			if got != want {
				t.Errorf("fromBuild = %+v, want %+v", got, want)
			}
		})
	}
}
