// Package kubernetes holds the service's Kubernetes manifests; its test
// validates them offline by strict decoding into the Kubernetes API types
// and by the rules docs/deploy.md states.
package kubernetes

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

// manifests are the decoded objects of the folder.
type manifests struct {
	deployments  map[string]*appsv1.Deployment
	statefulSets map[string]*appsv1.StatefulSet
	services     map[string]*corev1.Service
	configMaps   map[string]*corev1.ConfigMap
	pvcs         map[string]*corev1.PersistentVolumeClaim
	pdbs         map[string]*policyv1.PodDisruptionBudget
}

// load decodes every document of every YAML file listed by the
// kustomization, strictly: an unknown or misspelt field fails.
func load(t *testing.T) manifests {
	t.Helper()
	var kust struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
		Images     []struct {
			Name    string `json:"name"`
			NewName string `json:"newName"`
			NewTag  string `json:"newTag"`
		} `json:"images"`
	}
	b, err := os.ReadFile("kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, &kust); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	files, _ := filepath.Glob("*.yaml")
	files = slices.DeleteFunc(files, func(f string) bool { return f == "kustomization.yaml" })
	slices.Sort(files)
	listed := slices.Sorted(slices.Values(kust.Resources))
	if !slices.Equal(files, listed) {
		t.Fatalf("kustomization.yaml lists %v; the folder has %v", listed, files)
	}
	m := manifests{deployments: map[string]*appsv1.Deployment{}, statefulSets: map[string]*appsv1.StatefulSet{},
		services: map[string]*corev1.Service{}, configMaps: map[string]*corev1.ConfigMap{},
		pvcs: map[string]*corev1.PersistentVolumeClaim{}, pdbs: map[string]*policyv1.PodDisruptionBudget{}}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			var head struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				t.Fatalf("%s document %d: %v", f, i, err)
			}
			strict := func(obj any) {
				t.Helper()
				if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
					t.Fatalf("%s document %d (%s): %v", f, i, head.Kind, err)
				}
			}
			var name string
			switch head.APIVersion + " " + head.Kind {
			case "apps/v1 Deployment":
				o := &appsv1.Deployment{}
				strict(o)
				name, m.deployments[o.Name] = o.Name, o
			case "apps/v1 StatefulSet":
				o := &appsv1.StatefulSet{}
				strict(o)
				name, m.statefulSets[o.Name] = o.Name, o
			case "v1 Service":
				o := &corev1.Service{}
				strict(o)
				name, m.services[o.Name] = o.Name, o
			case "v1 ConfigMap":
				o := &corev1.ConfigMap{}
				strict(o)
				name, m.configMaps[o.Name] = o.Name, o
			case "v1 PersistentVolumeClaim":
				o := &corev1.PersistentVolumeClaim{}
				strict(o)
				name, m.pvcs[o.Name] = o.Name, o
			case "policy/v1 PodDisruptionBudget":
				o := &policyv1.PodDisruptionBudget{}
				strict(o)
				name, m.pdbs[o.Name] = o.Name, o
			case "v1 Secret":
				t.Fatalf("%s: a Secret in the manifests; secrets are created by the operator (docs/deploy.md), never committed", f)
			default:
				t.Fatalf("%s document %d: unexpected %s %s", f, i, head.APIVersion, head.Kind)
			}
			if name == "" {
				t.Fatalf("%s document %d (%s): no metadata.name", f, i, head.Kind)
			}
		}
	}
	return m
}

// workload is one role's pod template, whatever its kind.
type workload struct {
	kind, name string
	selector   map[string]string
	pod        corev1.PodTemplateSpec
}

func (m manifests) workloads() []workload {
	var out []workload
	for _, d := range m.deployments {
		out = append(out, workload{"Deployment", d.Name, d.Spec.Selector.MatchLabels, d.Spec.Template})
	}
	for _, s := range m.statefulSets {
		out = append(out, workload{"StatefulSet", s.Name, s.Spec.Selector.MatchLabels, s.Spec.Template})
	}
	slices.SortFunc(out, func(a, b workload) int { return strings.Compare(a.name, b.name) })
	return out
}

func matches(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// TestManifests checks the manifests of deploy/kubernetes: strict decoding
// into the Kubernetes API types, one workload per role of the kind
// docs/deploy.md explains, probes on the operations port, resource requests,
// a disruption budget per workload, and configuration and secrets only
// from the ConfigMap and Secrets, never literal.
func TestManifests(t *testing.T) {
	m := load(t)
	wantKind := map[string]string{"ingest": "StatefulSet", "process": "StatefulSet", "sink": "StatefulSet", "alerts": "Deployment", "serve": "Deployment"}
	cfg := m.configMaps["mi-config"]
	if cfg == nil || cfg.Data["KAFKA_BROKERS"] == "" {
		t.Fatal("ConfigMap mi-config with KAFKA_BROKERS is missing")
	}
	roles := map[string]bool{}
	secretEnv := map[string]bool{"MI_DATABASE_URL": true, "MI_ALERTS_KEY": true, "MI_FACILITATOR_AUTH": true}
	ref := regexp.MustCompile(`\$\(([A-Z0-9_]+)\)`)
	for _, w := range m.workloads() {
		t.Run(w.name, func(t *testing.T) {
			if !matches(w.selector, w.pod.Labels) {
				t.Errorf("selector %v does not match the pod labels %v", w.selector, w.pod.Labels)
			}
			if len(w.pod.Spec.Containers) != 1 {
				t.Fatalf("%d containers, want 1", len(w.pod.Spec.Containers))
			}
			c := w.pod.Spec.Containers[0]
			if len(c.Args) == 0 {
				t.Fatal("no arguments")
			}
			role := c.Args[0]
			if want, ok := wantKind[role]; !ok {
				t.Fatalf("runs mi %s, not one of the role commands", role)
			} else if w.kind != want {
				t.Errorf("mi %s runs as a %s; docs/deploy.md explains why it is a %s", role, w.kind, want)
			}
			if roles[role] {
				t.Errorf("a second workload runs mi %s", role)
			}
			roles[role] = true
			if c.Image != "mi" {
				t.Errorf("image %q: the kustomization's images entry sets it", c.Image)
			}
			args := strings.Join(c.Args, " ")
			for _, want := range []string{"--kafka-brokers $(KAFKA_BROKERS)", "--ops-addr :9090", "--log-format json"} {
				if !strings.Contains(args, want) {
					t.Errorf("arguments lack %q: %s", want, args)
				}
			}
			// Every $(VAR) comes from the ConfigMap or the container's env.
			env := map[string]corev1.EnvVar{}
			for _, e := range c.Env {
				env[e.Name] = e
			}
			for _, mm := range ref.FindAllStringSubmatch(args, -1) {
				if _, ok := env[mm[1]]; !ok && cfg.Data[mm[1]] == "" && !strings.HasPrefix(mm[1], "MI_PAY_TO") {
					t.Errorf("argument refers to $(%s), which neither the ConfigMap nor the env defines", mm[1])
				}
			}
			for name, e := range env {
				if secretEnv[name] && (e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
					t.Errorf("env %s must come from a Secret (secretKeyRef), not a literal", name)
				}
				if strings.Contains(strings.ToLower(e.Value), "postgres://") {
					t.Errorf("env %s holds a database URL literally", name)
				}
			}
			if strings.Contains(args, "postgres://") || strings.Contains(args, "--database-url") {
				t.Error("the database URL is passed on the command line; it comes from the Secret as MI_DATABASE_URL")
			}
			if role == "serve" || role == "alerts" {
				if _, ok := env["MI_DATABASE_URL"]; !ok {
					t.Error("no MI_DATABASE_URL from the Secret: replicas must share the ledger database")
				}
				if _, ok := env["MI_ALERTS_KEY"]; !ok {
					t.Error("no MI_ALERTS_KEY from the Secret: replicas must share the alert key")
				}
			}
			// Probes: liveness /healthz, readiness /readyz on the ops port.
			ports := map[string]int32{}
			for _, p := range c.Ports {
				ports[p.Name] = p.ContainerPort
			}
			if ports["ops"] != 9090 {
				t.Errorf("no container port ops: 9090")
			}
			probe := func(what string, p *corev1.Probe, path string, port ...string) {
				if p == nil || p.HTTPGet == nil {
					t.Errorf("no HTTP %s probe", what)
					return
				}
				if p.HTTPGet.Path != path || !slices.Contains(port, p.HTTPGet.Port.StrVal) {
					t.Errorf("%s probe %s on %q, want %s on %v", what, p.HTTPGet.Path, p.HTTPGet.Port.String(), path, port)
				}
			}
			probe("liveness", c.LivenessProbe, "/healthz", "ops", "http")
			probe("readiness", c.ReadinessProbe, "/readyz", "ops")
			if c.StartupProbe != nil {
				probe("startup", c.StartupProbe, "/healthz", "ops", "http")
			}
			if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
				t.Errorf("resources: want cpu and memory requests and a memory limit, got %v", c.Resources)
			}
			sc := w.pod.Spec.SecurityContext
			if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
				t.Error("the pod must run as non-root")
			}
			if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem {
				t.Error("the container's root file system must be read-only")
			}
			// The history volume: the sink and the API instances share it.
			usesHistory := false
			for _, v := range w.pod.Spec.Volumes {
				if v.PersistentVolumeClaim != nil {
					if m.pvcs[v.PersistentVolumeClaim.ClaimName] == nil {
						t.Errorf("volume %s claims %s, which is not in the manifests", v.Name, v.PersistentVolumeClaim.ClaimName)
					}
					usesHistory = usesHistory || v.PersistentVolumeClaim.ClaimName == "mi-history"
				}
			}
			if (role == "sink" || role == "serve") != usesHistory {
				t.Errorf("mi %s mounts the history volume: %v", role, usesHistory)
			}
			// A disruption budget selects the pods.
			budgets := 0
			for _, b := range m.pdbs {
				if b.Spec.Selector != nil && matches(b.Spec.Selector.MatchLabels, w.pod.Labels) {
					budgets++
				}
			}
			if budgets != 1 {
				t.Errorf("%d PodDisruptionBudgets select the pods, want 1", budgets)
			}
			if w.kind == "StatefulSet" {
				s := m.statefulSets[w.name]
				svc := m.services[s.Spec.ServiceName]
				if svc == nil || svc.Spec.ClusterIP != "None" {
					t.Errorf("serviceName %q is not a headless Service of the manifests", s.Spec.ServiceName)
				}
			}
			if role == "process" && !strings.Contains(args, "--instance-id $(POD_NAME)") {
				t.Error("processing instances need --instance-id $(POD_NAME): stable transactional ids and group membership")
			}
		})
	}
	for role := range wantKind {
		if !roles[role] {
			t.Errorf("no workload runs mi %s", role)
		}
	}
	for _, pvc := range m.pvcs {
		if pvc.Name == "mi-history" && !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
			t.Error("mi-history must be ReadWriteMany: the sink writes it and every API replica reads it")
		}
	}
	for _, svc := range m.services {
		found := false
		for _, w := range m.workloads() {
			if matches(svc.Spec.Selector, w.pod.Labels) {
				found = true
				for _, p := range svc.Spec.Ports {
					ok := false
					for _, cp := range w.pod.Spec.Containers[0].Ports {
						ok = ok || cp.Name == p.TargetPort.StrVal
					}
					if !ok {
						t.Errorf("Service %s targets port %q, which %s does not have", svc.Name, p.TargetPort.String(), w.name)
					}
				}
			}
		}
		if !found {
			t.Errorf("Service %s selects no workload", svc.Name)
		}
	}
}
