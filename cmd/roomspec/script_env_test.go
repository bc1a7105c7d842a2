package main

import (
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/roomspec/roomspec/internal/sharedpath"
)

// setupScriptEnv exposes the shared test data to scripts as $SHARED; a
// script that needs it starts with "[!exists $SHARED] skip".
func setupScriptEnv(e *testscript.Env) error {
	e.Setenv("SHARED", sharedpath.Dir())
	return nil
}
