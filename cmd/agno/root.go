package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// agnoCompat is the agno release whose AgentOS API this build speaks.
const agnoCompat = "2.6.13"

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "agno",
		Short:         "agno and AgentOS in Go",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newVersionCmd())
	root.AddCommand(newAgentOSCmd())
	root.AddCommand(newHITLCmd())
	root.AddCommand(newKnowledgeCmd())
	root.AddCommand(newSlackCmd())
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := version
			if v == "dev" {
				if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
					v = bi.Main.Version
				}
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "agno %s (agno API %s, %s %s/%s)\n", v, agnoCompat, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
