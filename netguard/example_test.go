package netguard_test

import (
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/agno-go/agno/netguard"
)

// A client for URLs that callers and models choose: public hosts and the
// two allowed internal destinations are reached, anything else internal
// is refused before a connection is made.
func Example() {
	g, err := netguard.New(netguard.Policy{Allow: []string{"wiki.corp.example", "10.1.0.0/16"}})
	if err != nil {
		log.Fatal(err)
	}
	c := g.Client(10 * time.Second)
	_, err = c.Get("http://127.0.0.1:8080/admin")
	var blocked *netguard.BlockedError
	if errors.As(err, &blocked) {
		fmt.Println(blocked)
	}
	// Output:
	// netguard: refused to connect to 127.0.0.1, a loopback address; to reach it, add "127.0.0.1/32" to [outbound] allow in config.toml
}
