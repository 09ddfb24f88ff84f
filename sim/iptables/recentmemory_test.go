package iptables

import "testing"

func TestRecentListBytes(t *testing.T) {
	tests := []struct {
		buckets int
		want    int64
	}{
		{0, 4096},     // the default: 264 + 16·128 = 2,312 bytes, kmalloc-4k
		{128, 4096},   // ip_list_tot 64-127
		{1, 512},      // 280 bytes
		{16, 1024},    // 520 bytes: one past kmalloc-512
		{64, 2048},    // 1,288 bytes
		{256, 8192},   // 4,360 bytes: ip_list_tot 128-255
		{1024, 32768}, // 16,648 bytes: order-3 pages
	}
	for _, tt := range tests {
		if got := RecentListBytes(tt.buckets); got != tt.want {
			t.Errorf("RecentListBytes(%d) = %d; want %d", tt.buckets, got, tt.want)
		}
	}
}
