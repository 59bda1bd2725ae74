package github

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	gh "github.com/google/go-github/v89/github"
)

type searchCodeArgs struct {
	Query    string  `json:"query" description:"(str) The search query."`
	Language *string `json:"language,omitempty" description:"(str) Filter by language. Defaults to None."`
	Repo     *string `json:"repo,omitempty" description:"(str) Filter by repository (e.g., 'owner/repo'). Defaults to None."`
	User     *string `json:"user,omitempty" description:"(str) Filter by user or organization. Defaults to None."`
	Path     *string `json:"path,omitempty" description:"(str) Filter by file path. Defaults to None."`
	Filename *string `json:"filename,omitempty" description:"(str) Filter by filename. Defaults to None."`
}

type searchIssuesArgs struct {
	Query      string  `json:"query" description:"(str) The search query."`
	State      *string `json:"state,omitempty" description:"(str) Filter by state ('open', 'closed'). Defaults to None."`
	TypeFilter *string `json:"type_filter,omitempty" description:"(str) Filter by type ('issue', 'pr'). Defaults to None."`
	Repo       *string `json:"repo,omitempty" description:"(str) Filter by repository (e.g., 'owner/repo'). Defaults to None."`
	User       *string `json:"user,omitempty" description:"(str) Filter by user or organization. Defaults to None."`
	Label      *string `json:"label,omitempty" description:"(str) Filter by label. Defaults to None."`
	Sort       *string `json:"sort,omitempty" description:"(str) Sort results by ('created', 'updated', 'comments'). Defaults to \"created\"."`
	Order      *string `json:"order,omitempty" description:"(str) Sort order ('asc', 'desc'). Defaults to \"desc\"."`
	Page       *int    `json:"page,omitempty" description:"(int) Page number for pagination. Defaults to 1."`
	PerPage    *int    `json:"per_page,omitempty" description:"(int) Number of results per page. Defaults to 30."`
}

// qualify appends "key:value" for each filter given, as agno builds the
// search query.
func qualify(q string, filters ...[2]*string) string {
	for _, f := range filters {
		if f[1] != nil && *f[1] != "" {
			q += " " + *f[0] + ":" + *f[1]
		}
	}
	return q
}

func s(v string) *string { return &v }

// codeItem is a code search result with the fields agno reads; go-github's
// CodeResult has no git_url or score.
type codeItem struct {
	Name       *string      `json:"name"`
	Path       *string      `json:"path"`
	SHA        *string      `json:"sha"`
	HTMLURL    *string      `json:"html_url"`
	GitURL     *string      `json:"git_url"`
	Score      *json.Number `json:"score"`
	Repository *struct {
		FullName *string `json:"full_name"`
	} `json:"repository"`
}

type codePage struct {
	Total int        `json:"total_count"`
	Items []codeItem `json:"items"`
}

func (t *tools) searchCode(ctx context.Context, a searchCodeArgs) (string, error) {
	q := qualify(a.Query, [2]*string{s("language"), a.Language}, [2]*string{s("repo"), a.Repo}, [2]*string{s("user"), a.User},
		[2]*string{s("path"), a.Path}, [2]*string{s("filename"), a.Filename})
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	results := []any{}
	total := 0
	// agno reads at most two pages of 30 (60 results).
	for page := 1; page <= 2 && len(results) < 60; page++ {
		req, err := t.c.NewRequest(ctx, "GET", "search/code?"+url.Values{"q": {q}, "page": {strconv.Itoa(page)}, "per_page": {"30"}}.Encode(), nil)
		if err != nil {
			return t.fail("searching code", err), nil
		}
		var res codePage
		if _, err := t.c.Do(req, &res); err != nil {
			return t.fail("searching code", err), nil
		}
		if page == 1 {
			total = res.Total
		}
		if len(res.Items) == 0 {
			break
		}
		for _, it := range res.Items {
			var repo any
			if it.Repository != nil {
				repo = sv(it.Repository.FullName)
			}
			var score any
			if it.Score != nil {
				score = *it.Score
			}
			results = append(results, obj("repository", repo, "path", sv(it.Path), "name", sv(it.Name), "sha", sv(it.SHA),
				"html_url", sv(it.HTMLURL), "git_url", sv(it.GitURL), "score", score))
		}
	}
	return t.indent(obj("query", q, "total_count", total, "results_count", len(results), "results", results)), nil
}

// repoFullName is owner/repo of an issue's repository_url, what
// PyGithub's issue.repository.full_name is.
func repoFullName(is *gh.Issue) any {
	u := is.GetRepositoryURL()
	i := strings.Index(u, "/repos/")
	if i < 0 {
		return nil
	}
	return u[i+len("/repos/"):]
}

func (t *tools) searchIssuesAndPRs(ctx context.Context, a searchIssuesArgs) (string, error) {
	q := qualify(a.Query, [2]*string{s("state"), a.State})
	switch or(a.TypeFilter, "") {
	case "issue":
		q += " is:issue"
	case "pr":
		q += " is:pr"
	}
	q = qualify(q, [2]*string{s("repo"), a.Repo}, [2]*string{s("user"), a.User}, [2]*string{s("label"), a.Label})
	page, perPage := or(a.Page, 1), min(or(a.PerPage, 30), 100)
	ctx, cancel := t.ctx(ctx)
	defer cancel()
	// PyGithub pages by its own 30, whatever per_page says.
	res, _, err := t.c.Search.Issues(ctx, q, &gh.SearchOptions{Sort: or(a.Sort, "created"), Order: or(a.Order, "desc"),
		ListOptions: gh.ListOptions{Page: page, PerPage: 30}})
	if err != nil {
		return t.fail("searching issues and PRs", err), nil
	}
	results := []any{}
	for _, is := range res.Issues {
		labels := []any{}
		for _, l := range is.Labels {
			labels = append(labels, sv(l.Name))
		}
		results = append(results, obj("number", iv(is.Number), "title", sv(is.Title), "repository", repoFullName(is), "state", sv(is.State),
			"created_at", iso(is.CreatedAt), "updated_at", iso(is.UpdatedAt), "html_url", sv(is.HTMLURL), "user", login(is.User),
			"is_pull_request", is.PullRequestLinks != nil, "comments", iv(is.Comments), "labels", labels))
		if len(results) >= perPage {
			break
		}
	}
	return t.indent(obj("query", q, "total_count", res.GetTotal(), "page", page, "per_page", perPage, "results_count", len(results), "results", results)), nil
}
