package main

import "github.com/roomspec/roomspec/internal/suggest"

// didYouMean is " (did you mean NEAR?)" for the name of names nearest to
// s, or "" when none is near.
func didYouMean(s string, names []string) string {
	if near := suggest.Nearest(s, names); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}
