package watsonx

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/model/modeltest/providertest"
)

// sharedIAM is the IAM every test's model exchanges its key with unless
// the test gives its own: the suite builds models through the registry,
// which has no IAM endpoint to set.
var sharedIAM *fakeIAM

func TestMain(m *testing.M) {
	sharedIAM = newFakeIAM(providertest.APIKey)
	defaultIAMURL = sharedIAM.url()
	code := m.Run()
	sharedIAM.srv.Close()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

const testProject = "0f1e2d3c-project"

func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Harness{
		Provider: ProviderIBM,
		ID:       "ibm/granite-3-8b-instruct",
		Options:  &Options{ProjectID: testProject},
		Start: func(t *testing.T, turns ...providertest.Turn) providertest.Fake {
			return startFakeChat(t, sharedIAM, testProject, turns...)
		},
	})
}
