package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// kbFlags are the flags every knowledge command shares.
type kbFlags struct {
	config, settings, knowledge string
	logLevel                    string
}

func (f *kbFlags) bind(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "config.toml", "path of config.toml")
	fl.StringVar(&f.settings, "settings", "", "path of settings.json (default: settings.json beside the config, when present)")
	fl.StringVar(&f.knowledge, "knowledge", "", "the [knowledge.NAME] to use (needed when config.toml has several)")
	fl.StringVar(&f.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
}

// openedKB is one knowledge base of config.toml, open on its storage.
type openedKB struct {
	*knowledge.Knowledge
	name string
	cfg  *config.Config
	res  *config.Resources
}

func (f kbFlags) open(ctx context.Context, cmd *cobra.Command) (*openedKB, error) {
	logger, err := newLoggerTo(cmd.ErrOrStderr(), f.logLevel)
	if err != nil {
		return nil, usageErr(cmd, err)
	}
	cfg, err := loadConfig(f.config, f.settings, logger)
	if err != nil {
		return nil, err
	}
	name, err := pickKnowledge(cfg, f.knowledge)
	if err != nil {
		return nil, usageErr(cmd, err)
	}
	res, err := cfg.OpenKnowledge(ctx)
	if err != nil {
		return nil, err
	}
	return &openedKB{Knowledge: res.Knowledge[name], name: name, cfg: cfg, res: res}, nil
}

func (k *openedKB) Close() error { return k.res.Close() }

// withKB runs fn on the knowledge base the flags name, open for the
// command's duration; SIGINT or SIGTERM cancels it.
func (f *kbFlags) withKB(fn func(ctx context.Context, cmd *cobra.Command, kb *openedKB, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx, stop := signalContext(cmd)
		defer stop()
		kb, err := f.open(ctx, cmd)
		if err != nil {
			return err
		}
		defer kb.Close()
		return fn(ctx, cmd, kb, args)
	}
}

func signalContext(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
}

func newKnowledgeListCmd() *cobra.Command {
	var f kbFlags
	var asJSON bool
	var limit int
	cmd := &cobra.Command{
		Use:   "list [--knowledge NAME]",
		Short: "List a knowledge base's contents with their status",
		Args:  cobra.NoArgs,
		RunE: f.withKB(func(ctx context.Context, cmd *cobra.Command, kb *openedKB, _ []string) error {
			list, total, err := kb.GetContent(ctx, contents.ListOptions{Limit: limit})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"knowledge": kb.name, "total": total, "data": list})
			}
			if total == 0 {
				fmt.Fprintf(out, "Knowledge base %q (%s) has no contents; add some with: agno knowledge add PATH|URL\n", kb.name, storeText(kb.cfg))
				return nil
			}
			tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tSIZE\tUPDATED")
			for _, c := range list {
				status := string(c.Status)
				if c.StatusMessage != "" {
					status += ": " + shorten(c.StatusMessage, 60)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", c.ID, shorten(c.Name, 40), status, c.Size, epoch(c.UpdatedAt))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(out, "%d of %d contents in knowledge base %q (%s).\n", len(list), total, kb.name, storeText(kb.cfg))
			return nil
		}),
	}
	f.bind(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (agno's content fields) instead of a table")
	cmd.Flags().IntVar(&limit, "limit", 0, "list at most this many, newest first (default all)")
	return cmd
}

func epoch(s int64) string {
	if s == 0 {
		return "-"
	}
	return time.Unix(s, 0).UTC().Format(time.DateTime)
}

func newKnowledgeSearchCmd() *cobra.Command {
	var f kbFlags
	var asJSON bool
	var limit int
	var searchType string
	cmd := &cobra.Command{
		Use:   `search "QUERY" [--knowledge NAME] [--limit N]`,
		Short: "Search a knowledge base as an agent's search_knowledge_base would",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return usageErr(cmd, errors.New(`give one query, quoted: agno knowledge search "how do refunds work"`))
			}
			if limit < 0 {
				return usageErr(cmd, fmt.Errorf("--limit %d: give a positive number of results, or leave it out for the knowledge base's max_results", limit))
			}
			if _, err := parseSearchType(searchType); err != nil {
				return usageErr(cmd, err)
			}
			return nil
		},
		RunE: f.withKB(func(ctx context.Context, cmd *cobra.Command, kb *openedKB, args []string) error {
			st, _ := parseSearchType(searchType) // checked in Args
			docs, err := kb.Search(ctx, args[0], knowledge.SearchOptions{MaxResults: limit, SearchType: st})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				for _, d := range docs {
					d.Embedding = nil
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(docs)
			}
			if len(docs) == 0 {
				fmt.Fprintf(out, "No results in knowledge base %q.\n", kb.name)
				return nil
			}
			for i, d := range docs {
				score := ""
				if s, ok := d.MetaData[vectordb.ScoreKey].(float64); ok {
					score = fmt.Sprintf(" (score %.3f)", s)
				}
				fmt.Fprintf(out, "%d. %s%s\n   %s\n", i+1, cmpOr(d.Name, d.ContentID), score, shorten(strings.Join(strings.Fields(d.Content), " "), 300))
			}
			return nil
		}),
	}
	f.bind(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the documents as JSON (agno's Document fields, without embeddings)")
	cmd.Flags().IntVar(&limit, "limit", 0, "number of results (default the knowledge base's max_results)")
	cmd.Flags().StringVar(&searchType, "search-type", "", "vector, keyword or hybrid (default the store's)")
	return cmd
}

func parseSearchType(s string) (vectordb.SearchType, error) {
	switch t := vectordb.SearchType(s); t {
	case "", vectordb.SearchVector, vectordb.SearchKeyword, vectordb.SearchHybrid:
		return t, nil
	}
	return "", fmt.Errorf("--search-type %q: use vector, keyword or hybrid", s)
}

func newKnowledgeRemoveCmd() *cobra.Command {
	var f kbFlags
	var all, yes bool
	cmd := &cobra.Command{
		Use:   "remove ID|NAME... [--knowledge NAME] | --all --yes",
		Short: "Remove contents (their chunks and their row) from a knowledge base",
		Long: `Remove contents from a knowledge base: each one's chunks from the vector
store and its row from the contents table. Name a content by the ID that
agno knowledge list prints, or by its name when only one content has it.
--all --yes empties the knowledge base.`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case all && len(args) > 0:
				return usageErr(cmd, errors.New("give content ids or --all, not both"))
			case all && !yes:
				return usageErr(cmd, errors.New("--all removes every content of the knowledge base: add --yes to confirm"))
			case !all && len(args) == 0:
				return usageErr(cmd, errors.New("give the ids (or names) of the contents to remove; agno knowledge list shows them"))
			}
			return nil
		},
		RunE: f.withKB(func(ctx context.Context, cmd *cobra.Command, kb *openedKB, args []string) error {
			return knowledgeRemove(ctx, cmd.OutOrStdout(), kb, args, all)
		}),
	}
	f.bind(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "remove every content")
	cmd.Flags().BoolVar(&yes, "yes", false, "confirm --all")
	return cmd
}

func knowledgeRemove(ctx context.Context, out io.Writer, kb *openedKB, args []string, all bool) error {
	list, _, err := kb.GetContent(ctx, contents.ListOptions{})
	if err != nil {
		return err
	}
	var ids []string
	if all {
		for _, c := range list {
			ids = append(ids, c.ID)
		}
	} else {
		// Resolve every argument before removing anything: a typo must not
		// leave half of the request done.
		for _, a := range args {
			id, err := resolveContent(list, a)
			if err != nil {
				return fmt.Errorf("knowledge base %q: %w", kb.name, err)
			}
			ids = append(ids, id)
		}
	}
	var errs []error
	removed := 0
	for _, id := range ids {
		if err := kb.RemoveContentByID(ctx, id); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	fmt.Fprintf(out, "Removed %d of %d contents from knowledge base %q (%s).\n", removed, len(ids), kb.name, storeText(kb.cfg))
	return errors.Join(errs...)
}

func resolveContent(list []knowledge.Content, arg string) (string, error) {
	var named []string
	for _, c := range list {
		if c.ID == arg {
			return c.ID, nil
		}
		if c.Name == arg {
			named = append(named, c.ID)
		}
	}
	switch len(named) {
	case 1:
		return named[0], nil
	case 0:
		return "", fmt.Errorf("no content has the id or name %q; agno knowledge list shows them", arg)
	}
	return "", fmt.Errorf("%d contents are named %q (%s): give the id of the one to remove", len(named), arg, strings.Join(named, ", "))
}
