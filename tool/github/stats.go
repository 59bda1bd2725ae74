package github

import (
	"context"
	"sort"

	gh "github.com/google/go-github/v89/github"
)

// orNone is agno's `str(x) if x else None`.
func orNone(p *string) any {
	if p == nil || *p == "" {
		return nil
	}
	return *p
}

func (t *tools) getRepositoryWithStats(ctx context.Context, a repoArgs) (string, error) {
	owner, name, err := splitRepo(a.RepoName)
	if err != nil {
		return errObject(err.Error()), nil
	}
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	fail := func(err error) (string, error) { return t.fail("getting repository stats", err), nil }
	r, _, err := t.c.Repositories.Get(ctx, owner, name)
	if err != nil {
		return fail(err)
	}
	var license any
	if r.License != nil {
		license = orNone(r.License.Name)
	}
	topics := []any{}
	for _, tp := range r.Topics {
		topics = append(topics, tp)
	}
	info := obj("id", i64(r.ID), "name", sv(r.Name), "full_name", sv(r.FullName), "owner", login(r.Owner),
		"description", orNone(r.Description), "html_url", sv(r.HTMLURL), "homepage", orNone(r.Homepage), "language", orNone(r.Language),
		"created_at", iso(r.CreatedAt), "updated_at", iso(r.UpdatedAt), "pushed_at", iso(r.PushedAt), "size", iv(r.Size),
		"stargazers_count", iv(r.StargazersCount), "watchers_count", iv(r.WatchersCount), "forks_count", iv(r.ForksCount),
		"open_issues_count", iv(r.OpenIssuesCount), "default_branch", sv(r.DefaultBranch), "topics", topics, "license", license,
		"private", r.GetPrivate(), "archived", r.GetArchived())

	langs, _, err := t.c.Repositories.ListLanguages(ctx, owner, name)
	if err != nil {
		return fail(err)
	}
	keys := make([]string, 0, len(langs))
	for k := range langs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if langs[keys[i]] != langs[keys[j]] {
			return langs[keys[i]] > langs[keys[j]]
		}
		return keys[i] < keys[j]
	})
	lo := obj()
	for _, k := range keys {
		lo.Set(k, langs[k])
	}
	info.Set("languages", lo)

	// Each part below that fails is None or empty, as agno's.
	var openIssues any
	iopts := &gh.IssueListByRepoOptions{State: "open", ListOptions: gh.ListOptions{PerPage: 100}}
	n := 0
	for range t.maxPages {
		issues, resp, err := t.c.Issues.ListByRepo(ctx, owner, name, iopts)
		if err != nil {
			n = -1
			break
		}
		for _, is := range issues {
			if is.PullRequestLinks == nil {
				n++
			}
		}
		if resp.NextPage == 0 {
			break
		}
		iopts.ListOptions.Page = resp.NextPage
	}
	if n >= 0 {
		openIssues = n
	}
	info.Set("actual_open_issues", openIssues)

	var openPRs any
	if prs, resp, err := t.c.PullRequests.List(ctx, owner, name, &gh.PullRequestListOptions{State: "open", ListOptions: gh.ListOptions{PerPage: 1}}); err == nil {
		openPRs = len(prs)
		if resp.LastPage > 0 {
			openPRs = resp.LastPage
		}
	}
	info.Set("open_pr_count", openPRs)

	recent := []any{}
	if prs, _, err := t.c.PullRequests.List(ctx, owner, name, &gh.PullRequestListOptions{State: "open", ListOptions: gh.ListOptions{PerPage: 10}}); err == nil {
		for _, p := range prs[:min(len(prs), 10)] {
			// The listing has no comment count: PyGithub fetches each pull
			// request for it, and skips one that fails.
			full, _, err := t.c.PullRequests.Get(ctx, owner, name, p.GetNumber())
			if err != nil || full.Comments == nil || full.Base == nil || full.Head == nil {
				continue
			}
			recent = append(recent, obj("number", iv(full.Number), "title", sv(full.Title), "user", login(full.User),
				"created_at", iso(full.CreatedAt), "updated_at", iso(full.UpdatedAt), "url", sv(full.HTMLURL),
				"base", sv(full.Base.Ref), "head", sv(full.Head.Ref), "comment_count", *full.Comments))
		}
	}
	info.Set("recent_open_prs", recent)

	var metrics any
	if prs, _, err := t.c.PullRequests.List(ctx, owner, name, &gh.PullRequestListOptions{State: "all", Sort: "created", Direction: "desc", ListOptions: gh.ListOptions{PerPage: 100}}); err == nil {
		// merged_at tells what PyGithub's is_merged() asks GitHub once per
		// pull request.
		merged := 0
		var hours []float64
		for _, p := range prs {
			if p.MergedAt == nil {
				continue
			}
			merged++
			if p.CreatedAt != nil {
				hours = append(hours, p.MergedAt.Sub(p.CreatedAt.Time).Hours())
			}
		}
		var rate any = 0
		if len(prs) > 0 {
			rate = float64(merged) / float64(len(prs)) * 100
		}
		var avg any
		if len(hours) > 0 {
			sum := 0.0
			for _, h := range hours {
				sum += h
			}
			avg = sum / float64(len(hours))
		}
		metrics = obj("total_prs", len(prs), "merged_prs", merged, "acceptance_rate", rate, "avg_time_to_merge", avg)
	}
	info.Set("pr_metrics", metrics)

	contributors := []any{}
	if cs, _, err := t.c.Repositories.ListContributors(ctx, owner, name, &gh.ListContributorsOptions{ListOptions: gh.ListOptions{PerPage: 20}}); err == nil {
		for _, c := range cs[:min(len(cs), 20)] {
			contributors = append(contributors, obj("login", sv(c.Login), "contributions", iv(c.Contributions), "url", sv(c.HTMLURL)))
		}
	}
	info.Set("contributors", contributors)
	return t.indent(info), nil
}
