package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run this binary as the "roomspec" command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"roomspec": func() {
			os.Exit(run(&env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, os.Args[1:]))
		},
	})
}

// TestScripts runs the CLI scenarios in testdata/script/*.txtar (see
// setupScriptEnv for the variables and conditions they may use).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       os.Getenv("UPDATE_SCRIPTS") == "1",
		Setup:               setupScriptEnv,
		Condition:           scriptCondition,
	})
}
