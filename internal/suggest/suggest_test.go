package suggest

import "testing"

func TestNearest(t *testing.T) {
	names := []string{"upstream", "upstream-reuse", "sglang-30545", "fixed"}
	for _, tt := range []struct{ s, want string }{
		{"upstrem", "upstream"},
		{"sglang-30454", "sglang-30545"},
		{"fixd", "fixed"},
		{"mooncake", ""}, // nothing near
		{"", ""},
	} {
		if got := Nearest(tt.s, names); got != tt.want {
			t.Errorf("Nearest(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance(kitten, sitting) = %d", d)
	}
}
