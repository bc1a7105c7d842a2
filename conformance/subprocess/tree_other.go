//go:build !linux

package subprocess

// Elsewhere than Linux a child's process group is what is killed: a
// descendant that leaves the group (setsid) is not found.

const tokenVar = "ROOMSPEC_SUBPROCESS"

func adoptOrphans() {}

func killTree(pgid, root int, token token) []int {
	killGroup(pgid)
	return nil
}
