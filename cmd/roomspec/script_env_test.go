package main

import (
	"fmt"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/roomspec/roomspec/internal/sharedpath"
)

// setupScriptEnv gives scripts the paths of test data: $SHARED, the shared
// folder beside the checkout (a script that needs it starts with
// "[!shared] skip"), $CAPTURES, the committed real captures, and
// $CONFORMANCE, the conformance package (its Python implementation), and
// $SCENARIOS, the committed replay scenarios.
func setupScriptEnv(e *testscript.Env) error {
	e.Setenv("SHARED", sharedpath.Dir())
	caps, err := filepath.Abs("../../traces/testdata/captures")
	if err != nil {
		return err
	}
	e.Setenv("CAPTURES", caps)
	conf, err := filepath.Abs("../../conformance")
	if err != nil {
		return err
	}
	e.Setenv("CONFORMANCE", conf)
	scen, err := filepath.Abs("../../traces/testdata/scenarios")
	if err != nil {
		return err
	}
	e.Setenv("SCENARIOS", scen)
	return nil
}

// scriptCondition implements the scripts' custom conditions: [shared] is
// true when ../shared is present.
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "shared":
		return sharedpath.Dir() != "", nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
