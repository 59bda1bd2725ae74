package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/agno-go/agno/agentos/slack"
)

func newSlackCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "slack",
		Short: "Slack interface tools",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newSlackManifestCmd())
	return cmd
}

func newSlackManifestCmd() *cobra.Command {
	var rawURL, name, prefix string
	cmd := &cobra.Command{
		Use:   "manifest --url https://host",
		Short: "Print agno's Slack app manifest with this server's events and interactions URLs",
		Long: "Prints agno's Slack app manifest (JSON) with the events URL <url><prefix>/events and the\n" +
			"interactivity URL <url><prefix>/interactions. Paste it at api.slack.com/apps →\n" +
			"Create New App → From an app manifest.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rawURL == "" {
				return errors.New("--url is required: give the public https URL Slack reaches AgentOS at, such as --url https://my-tunnel.ngrok.app")
			}
			base, err := slack.BaseURL(rawURL)
			if err != nil {
				return err
			}
			if err := slack.CheckName(name); err != nil {
				return err
			}
			if err := slack.CheckPrefix(prefix); err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(slack.NewManifest(base, prefix, name).JSON())
			return err
		},
	}
	cmd.Flags().StringVar(&rawURL, "url", "", "public https URL of AgentOS (required)")
	cmd.Flags().StringVar(&name, "name", slack.DefaultAppName, "app and bot name")
	cmd.Flags().StringVar(&prefix, "prefix", slack.DefaultPrefix, "route prefix of [interfaces.slack]")
	return cmd
}
