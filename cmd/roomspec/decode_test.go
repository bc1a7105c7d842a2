package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestDecodeScripts runs the CLI scenarios of testdata/decode_script with
// $CAPTURES set to the committed real captures in traces/testdata. They
// live apart from testdata/script because TestScripts has no $CAPTURES and
// testscript has no condition to skip on a missing variable.
func TestDecodeScripts(t *testing.T) {
	caps, err := filepath.Abs("../../traces/testdata/captures")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/decode_script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup: func(e *testscript.Env) error {
			e.Setenv("CAPTURES", caps)
			return setupScriptEnv(e)
		},
	})
}
