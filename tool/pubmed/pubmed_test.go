package pubmed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
	_ "github.com/agno-go/agno/tool/pubmed"
	"github.com/agno-go/agno/tool/tooltest"
)

// article is a PubmedArticle as efetch answers it in retmode=xml
// (https://www.ncbi.nlm.nih.gov/books/NBK25499/#chapter4.EFetch and the
// PubMed DTD https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd):
// MedlineCitation (PMID, Article with Journal, ArticleTitle, Abstract,
// AuthorList, PublicationTypeList; MeshHeadingList; KeywordList), then
// PubmedData's ArticleIdList.
func article(pmid, abstract string) string {
	return fmt.Sprintf(`<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">%[1]s</PMID>
<Article PubModel="Print"><Journal><JournalIssue CitedMedium="Internet"><PubDate><Year>2023</Year><Month>Mar</Month></PubDate></JournalIssue><Title>Nature medicine</Title></Journal>
<ArticleTitle>CRISPR therapy for <i>sickle cell</i> disease.</ArticleTitle>
<Abstract>%[2]s</Abstract>
<AuthorList CompleteYN="Y"><Author ValidYN="Y"><LastName>Frangoul</LastName><ForeName>Haydar</ForeName></Author><Author ValidYN="Y"><LastName>Altshuler</LastName><ForeName>David</ForeName></Author></AuthorList>
<PublicationTypeList><PublicationType UI="D016428">Journal Article</PublicationType><PublicationType UI="D016449">Randomized Controlled Trial</PublicationType></PublicationTypeList>
</Article>
<MeshHeadingList><MeshHeading><DescriptorName UI="D000755" MajorTopicYN="N">Anemia, Sickle Cell</DescriptorName></MeshHeading></MeshHeadingList>
<KeywordList Owner="NOTNLM"><Keyword MajorTopicYN="N">CRISPR</Keyword><Keyword MajorTopicYN="N">gene editing</Keyword></KeywordList>
</MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">%[1]s</ArticleId><ArticleId IdType="doi">10.1000/xyz%[1]s</ArticleId><ArticleId IdType="pmc">PMC%[1]s</ArticleId></ArticleIdList></PubmedData></PubmedArticle>`, pmid, abstract)
}

// fakeEutils answers esearch (an eSearchResult with its IdList) and
// efetch (a PubmedArticleSet) as E-utilities do.
func fakeEutils(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		switch r.URL.Path {
		case "/eutils/esearch.fcgi":
			if q.Get("term") == "fail" {
				http.Error(w, "API rate limit exceeded", http.StatusTooManyRequests)
				return
			}
			if q.Get("db") != "pubmed" || q.Get("usehistory") != "y" || q.Get("email") == "" {
				http.Error(w, "bad", http.StatusBadRequest)
				return
			}
			ids := "<Id>36000001</Id><Id>36000002</Id>"
			if q.Get("term") == "big" {
				ids = strings.Repeat("<Id>1</Id>", 40)
			}
			fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch 20060628//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">
<eSearchResult><Count>2</Count><RetMax>%s</RetMax><RetStart>0</RetStart><QueryKey>1</QueryKey><WebEnv>MCID_1</WebEnv><IdList>%s</IdList></eSearchResult>`, q.Get("retmax"), ids)
		case "/eutils/efetch.fcgi":
			var arts []string
			for _, id := range strings.Split(q.Get("id"), ",") {
				abs := `<AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">Sickle cell disease is inherited.</AbstractText><AbstractText Label="METHODS">We edited BCL11A.</AbstractText>`
				if id == "36000002" {
					abs = `<AbstractText>Short.</AbstractText>`
				}
				if id == "1" {
					abs = "<AbstractText>" + strings.Repeat("long ", 100) + "</AbstractText>"
				}
				arts = append(arts, article(id, abs))
			}
			fmt.Fprintf(w, `<?xml version="1.0" ?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">
<PubmedArticleSet>%s</PubmedArticleSet>`, strings.Join(arts, "\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestConformance runs the suite against agno v2.6.13's PubmedTools
// (tools/pubmed.py).
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "pubmed",
		Name:      "pubmed",
		Functions: []tooltest.Function{{Name: "search_pubmed", Args: []string{"query", "max_results"}}},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			srv := fakeEutils(t)
			env.HTTPClient = webapitest.Client(t)
			return fmt.Sprintf("base_url = %q\nmax_result_bytes = 2000", srv.URL+"/eutils")
		},
		Failures: map[string][]tooltest.Call{
			"search_pubmed": {{Args: `{"query": "fail"}`, Want: "Could not fetch articles. Error: GET http://127.0.0.1"}},
		},
		Oversized: &tooltest.Oversized{Function: "search_pubmed", Call: tooltest.Call{Args: `{"query": "big", "max_results": 40}`, Want: "result truncated"}, Option: "max_result_bytes", Limit: 2000},
		BadOptions: []tooltest.BadOption{
			{Table: `base_url = "eutils"`, Key: "base_url"},
			{Table: `max_results = -2`, Key: "max_results"},
		},
	})
}

func search(t *testing.T, table string, args map[string]any) []string {
	t.Helper()
	tk, _ := tool.LookupToolkit("pubmed")
	env := tool.ToolkitEnv{HTTPClient: webapitest.Client(t)}
	opts := tk.DefaultOptions(env)
	if _, err := toml.Decode(table, opts); err != nil {
		t.Fatal(err)
	}
	p, err := tk.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := p.Functions(context.Background())
	res, err := fns[0].Invoke(context.Background(), &tool.Call{Function: fns[0]}, args)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		t.Fatalf("%v: %s", err, res.Content)
	}
	return out
}

// The concise results are agno's: an abstract over 200 characters gives
// title, date and its first 200 characters; a shorter one the summary
// line alone (agno's conditional expression binds so). The expanded
// results carry every field.
func TestSearchPubmed(t *testing.T) {
	srv := fakeEutils(t)
	base := fmt.Sprintf("base_url = %q\n", srv.URL+"/eutils")
	got := search(t, base, map[string]any{"query": "crispr sickle"})
	if len(got) != 2 || got[0] != "Summary: BACKGROUND: Sickle cell disease is inherited.\n\nMETHODS: We edited BCL11A." || got[1] != "Summary: Short." {
		t.Errorf("concise: %q", got)
	}
	got = search(t, base+"results_expanded = true", map[string]any{"query": "crispr sickle", "max_results": 1})
	want := "Published: 2023\nTitle: CRISPR therapy for sickle cell disease.\nFirst Author: Frangoul, Haydar\nJournal: Nature medicine\n" +
		"Publication Type: Journal Article, Randomized Controlled Trial\nDOI: 10.1000/xyz36000001\nPubMed URL: https://pubmed.ncbi.nlm.nih.gov/36000001/\n" +
		"Full Text URL: https://www.ncbi.nlm.nih.gov/pmc/articles/PMC36000001/\nKeywords: CRISPR, gene editing\nMeSH Terms: Anemia, Sickle Cell\n" +
		"Summary:\nBACKGROUND: Sickle cell disease is inherited.\n\nMETHODS: We edited BCL11A."
	if len(got) != 2 || got[0] != want {
		t.Errorf("expanded:\n%s\nwant\n%s", got[0], want)
	}
	got = search(t, base, map[string]any{"query": "big", "max_results": 1})
	if !strings.HasPrefix(got[0], "Title: CRISPR therapy for sickle cell disease.\nPublished: 2023\nSummary: long long") || !strings.HasSuffix(got[0], "...") {
		t.Errorf("long abstract: %q", got[0])
	}
}
