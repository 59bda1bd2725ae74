// Command server is the tool/mcp test server over stdio (default) or,
// with -http ADDR, streamable HTTP; in HTTP mode it prints
// "listening on HOST:PORT" once ready. The tests build it with go build.
//
// Beyond mcptest's tools it has "hang", which never answers, and flags
// making the handshake or tools/list never answer while a file exists: a
// hung server, which only exists out of process (in the test process it
// would leak the goroutine).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agno-go/agno/tool/mcp/internal/mcptest"
)

// forever blocks past any test. A timer, not select{}: the runtime would
// end a process whose goroutines all block on channels, and a hung server
// does not end.
func forever() { time.Sleep(24 * time.Hour) }

func exists(path string) bool {
	_, err := os.Stat(path)
	return path != "" && err == nil
}

func newServer(hangInit, hangList string) *sdk.Server {
	srv := mcptest.NewServer()
	srv.AddTool(&sdk.Tool{
		Name:        "hang",
		Description: "Creates the file named by marker (when given) with the server's pid, then never answers, whatever it is told.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"marker": map[string]any{"type": "string"}}},
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var a struct {
			Marker string `json:"marker"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &a)
		if a.Marker != "" {
			_ = os.WriteFile(a.Marker, []byte(strconv.Itoa(os.Getpid())), 0o600)
		}
		forever()
		return nil, nil
	})
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			// The go-sdk client opens with server/discover, falling back
			// to initialize.
			handshake := method == "server/discover" || method == "initialize"
			if (handshake && exists(hangInit)) || (method == "tools/list" && exists(hangList)) {
				forever()
			}
			return next(ctx, method, req)
		}
	})
	return srv
}

func main() {
	addr := flag.String("http", "", "serve streamable HTTP on this address instead of stdio")
	hangInit := flag.String("hang-init", "", "never answer server/discover or initialize while this file exists")
	hangList := flag.String("hang-list", "", "never answer tools/list while this file exists")
	started := flag.String("started", "", "append the pid to this file on start, to count the processes started")
	banner := flag.String("stderr", "", "write this to standard error on start (\\n ends a line), as servers print banners")
	flag.Parse()
	if *banner != "" {
		fmt.Fprint(os.Stderr, strings.ReplaceAll(*banner, `\n`, "\n"))
	}
	if *started != "" {
		f, err := os.OpenFile(*started, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
	srv := newServer(*hangInit, *hangList)
	if *addr == "" {
		if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	fmt.Fprintf(os.Stdout, "listening on %s\n", ln.Addr())
	log.Fatal(http.Serve(ln, h))
}
