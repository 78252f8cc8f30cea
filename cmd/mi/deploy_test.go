package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestManifestArguments parses the arguments of every workload of
// deploy/kubernetes with the role command's own flags, $(VAR) references
// replaced by the ConfigMap's values: a flag the command does not define,
// or a value it cannot parse, fails here rather than in a crash-looping pod.
func TestManifestArguments(t *testing.T) {
	dir := filepath.Join("..", "..", "deploy", "kubernetes")
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	env := map[string]string{"POD_NAME": "mi-process-0"}
	var pods []corev1.PodTemplateSpec
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
			var head struct{ Kind string }
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			switch head.Kind {
			case "ConfigMap":
				var cm corev1.ConfigMap
				if err := yaml.Unmarshal([]byte(doc), &cm); err != nil {
					t.Fatal(err)
				}
				for k, v := range cm.Data {
					env[k] = v
				}
			case "Deployment":
				var d appsv1.Deployment
				if err := yaml.Unmarshal([]byte(doc), &d); err != nil {
					t.Fatal(err)
				}
				pods = append(pods, d.Spec.Template)
			case "StatefulSet":
				var s appsv1.StatefulSet
				if err := yaml.Unmarshal([]byte(doc), &s); err != nil {
					t.Fatal(err)
				}
				pods = append(pods, s.Spec.Template)
			}
		}
	}
	if len(pods) != len(roleCommands) {
		t.Fatalf("%d workloads in %s, want one per role command (%d)", len(pods), dir, len(roleCommands))
	}
	ref := regexp.MustCompile(`\$\(([A-Z0-9_]+)\)`)
	for _, p := range pods {
		args := p.Spec.Containers[0].Args
		cmd := args[0]
		roles, ok := roleCommands[cmd]
		if !ok {
			t.Errorf("%s runs mi %s, not a role command", p.Labels["app.kubernetes.io/name"], cmd)
			continue
		}
		var expanded []string
		for _, a := range args[1:] {
			expanded = append(expanded, ref.ReplaceAllStringFunc(a, func(m string) string { return env[m[2:len(m)-1]] }))
		}
		// -h last: every flag before it is parsed, then the command stops.
		err := cmdRun(context.Background(), cmd, roles, append(expanded, "-h"))
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("mi %s %s: %v", cmd, strings.Join(expanded, " "), err)
		}
	}
}
