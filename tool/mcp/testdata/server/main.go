// Command server is the tool/mcp test server over stdio (default) or,
// with -http ADDR, streamable HTTP; in HTTP mode it prints
// "listening on HOST:PORT" once ready. The tests build it with go build.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agno-go/agno/tool/mcp/internal/mcptest"
)

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	flag.Parse()
	if *addr == "" {
		if err := mcptest.NewServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := mcptest.NewServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	fmt.Fprintf(os.Stdout, "listening on %s\n", ln.Addr())
	log.Fatal(http.Serve(ln, h))
}
