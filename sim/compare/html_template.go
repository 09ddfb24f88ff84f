package compare

import "html/template"

// htmlTemplate is WriteHTML's page. It has no external asset: styles are
// inline and plots are inline SVG.
var htmlTemplate = template.Must(template.New("compare").Funcs(template.FuncMap{
	"at": func(s []string, i int) string { return s[i] },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>svclab comparison</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { padding: 0.2em 0.8em; border-bottom: 1px solid #ddd; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.worse td { background: #fde0dc; }
tr.better td { background: #dff3e4; }
tr.differs td { font-weight: bold; }
figure { margin: 1.5em 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; }
</style>
</head>
<body>
<h1>svclab comparison</h1>
<p>base: <code>{{.Base.Path}}</code><br>new: <code>{{.New.Path}}</code></p>
<h2>Environments</h2>
<table>
<tr><th></th><th>base</th><th>new</th></tr>
{{- range $i, $label := .EnvLabels}}
{{- $b := at $.BaseEnv $i}}{{$n := at $.NewEnv $i}}
<tr{{if ne $b $n}} class="differs"{{end}}><th>{{$label}}</th><td>{{$b}}</td><td>{{$n}}</td></tr>
{{- end}}
</table>
<h2>Comparison</h2>
<p>{{.Matching}}.<br>Medians ± their {{.Confidence}} interval; p: two-sided Mann-Whitney U test; &ldquo;~&rdquo;: no significant change at alpha {{.Alpha}}.</p>
<table>
<tr><th>metric</th><th>point</th><th>base</th><th>new</th><th>delta</th><th>p</th><th></th></tr>
{{- range .Rows}}
<tr{{if .Change}} class="{{.Change}}"{{end}}><td>{{.Metric}}</td><td>{{.Point}}</td><td class="num">{{.Base}}</td><td class="num">{{.New}}</td><td class="num">{{.Delta}}</td><td>{{.P}}</td><td>{{.Change}}</td></tr>
{{- end}}
</table>
{{- if .Warnings}}
<h2>Warnings</h2>
<ul>
{{- range .Warnings}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- end}}
{{- if .Figures}}
<h2>Plots</h2>
{{- range .Figures}}
<figure>
{{.SVG}}
<figcaption>{{.Caption}}</figcaption>
</figure>
{{- end}}
{{- end}}
</body>
</html>
`))
