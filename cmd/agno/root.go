package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

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
	root.AddCommand(newConfigCmd())
	root.AddCommand(newRunCmd())
	root.AddCommand(newSlackCmd())
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageErr(cmd, err) })
	strictGroups(root)
	return root
}

// strictGroups makes every command that only groups others refuse an
// unknown subcommand with exit 2 and the likely one ("agno agentos strt"
// would otherwise print help and succeed), and print its help when
// given none; wrong arguments to any command exit 2.
func strictGroups(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		strictGroups(c)
	}
	if !cmd.HasSubCommands() || cmd.Runnable() {
		if check := cmd.Args; check != nil { // wrong arguments are a usage error too
			cmd.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					return usageErr(cmd, err)
				}
				return nil
			}
		}
		return
	}
	cmd.SuggestionsMinimumDistance = 2
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return &usageError{fmt.Errorf("%s\nusage: %s <command> (%s --help lists them)", msg, cmd.CommandPath(), cmd.CommandPath())}
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
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
