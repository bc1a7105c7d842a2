package bundled_test

import (
	"context"
	"fmt"

	"github.com/roomspec/roomspec/spec/bundled"
	"github.com/roomspec/roomspec/tla/check"
)

// The model checker's verdicts on Room.tla under a bundled variant.
func Example() {
	m, _, err := bundled.Variant("fixed")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := check.Check(context.Background(), m, check.Options{All: true})
	for _, v := range r.Verdicts {
		if v.Name == "AbortedRoomsTerminate" {
			fmt.Println(v.Name, v.Holds)
		}
	}
	_, err = bundled.Config("no-such")
	fmt.Println(err != nil)
	// Output:
	// AbortedRoomsTerminate true
	// true
}
