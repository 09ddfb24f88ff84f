package cost

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/svclab/svclab/sim/stats"
)

// Forms a sync curve can take.
const (
	FormLinear    = "linear"    // y = a + b·x
	FormPower     = "power"     // y = a·x^b, fitted as a line in log-log
	FormQuadratic = "quadratic" // y = a + b·x + c·x²
)

// SyncCurve is a sync time (seconds) against the ruleset's size in rules.
type SyncCurve struct {
	Metric string `json:"metric"`
	// Form is the chosen form: linear when the line fits (R² ≥ MinR2),
	// otherwise whichever of linear, power and quadratic (with 4 points or
	// more, so that it has an interval) leaves the smallest residual
	// standard error in seconds.
	Form string `json:"form"`
	// R2 is the chosen form's R² in seconds; LinearR2 the line's.
	R2       float64 `json:"r2"`
	LinearR2 float64 `json:"linear_r2"`
	// Points is the number of calibration points, MaxRules the largest
	// ruleset among them.
	Points   int       `json:"points"`
	MaxRules float64   `json:"max_rules"`
	Linear   stats.Fit `json:"linear"`
	// Power is the line through (ln rules, ln seconds), when fitted.
	Power *stats.Fit `json:"power,omitempty"`
	// Quadratic is set when fitted (4 points or more).
	Quadratic *QuadFit `json:"quadratic,omitempty"`
	// BetterForm names a form that leaves less than half the line's
	// residual error although the line was kept (its R² ≥ MinR2): a sign
	// the times grow faster than linearly.
	BetterForm string `json:"better_form,omitempty"`
	// Validation is, per form, the relative error of predicting the
	// largest calibrated size from the smaller ones (fitted without it):
	// how well each form extrapolates on this machine's own data (the
	// quadratic only when 4 sizes or more are left to fit it: through 3 it
	// passes exactly, noise and all). With 4 sizes or more the form with
	// the smallest such error is chosen (Selected "extrapolation");
	// otherwise the R² rule above ("fit"). A
	// tool known to grow quadratically gets the quadratic once the points
	// show its curvature ("mechanism", see fitSyncCurve).
	Validation map[string]float64 `json:"validation,omitempty"`
	Selected   string             `json:"selected"`
	// ValidationFactor is the largest size over the second largest: the
	// extrapolation the validation tested.
	ValidationFactor float64 `json:"validation_factor,omitempty"`
	// PowerFrom is the smallest ruleset the power form was fitted on: the
	// fixed cost of tiny rulesets bends a power law, so it is fitted on
	// the sizes of at least MaxRules/powerFromFraction.
	PowerFrom float64 `json:"power_from,omitempty"`
	// PowerOffset is the fixed cost the power form adds: the time at the
	// smallest size, when that size is below MaxRules/200 (y = offset +
	// a·x^b).
	PowerOffset float64 `json:"power_offset,omitempty"`
	// Load is how much one load scatters around its size's median, when
	// the calibration recorded its loads: At's interval is for the mean,
	// Predict's for what a sweep will measure.
	Load *LoadSpread `json:"load_spread,omitempty"`
	// ChainList, when set, priced the tool's chain-list walk out of the
	// calibration's times: the curve is the rest of the sync, and a
	// prediction adds the walk of its own payload (ChainListPrice).
	ChainList *ChainListPrice `json:"chain_list,omitempty"`
	// ChainDump, when set, priced the kernel's walk through the chains it
	// dumps to nft out of the calibration's times, as ChainList does
	// (ChainDumpPrice).
	ChainDump *ChainDumpPrice `json:"chain_dump,omitempty"`
	// AnonymousSets, when set, priced the kernel's walks per anonymous set
	// (an nftables full sync's) out of the calibration's times, as
	// ChainList does (AnonymousSetPrice).
	AnonymousSets *AnonymousSetPrice `json:"anonymous_sets,omitempty"`
	// OneFamily says every calibration point loaded one IP family's payload
	// (a sweep without a mix: IPv4 fillers), so the curve is the time of one
	// restore: a payload of several families (Size.FamilyRules) is
	// predicted as the sum of each family's, as kube-proxy's proxiers and
	// the lab restore each family's payload on its own. False when the
	// calibration's points may hold several (a mix's sweep): its curve is
	// then in the payloads' summed rules.
	OneFamily bool `json:"one_family,omitempty"`
	// Composition, when set, reads the curve at a payload's chains
	// (ChainComposition): a full sync quadratic in chains, or a partial
	// sync that replaces the table (with Partial), fitted on synthetic
	// fillers of one composition.
	Composition *ChainComposition `json:"chain_composition,omitempty"`
	// Partial, beside Composition, prices a partial sync's payload apart
	// from its table (PartialPayload): a partial restore that replaces
	// the whole table, fitted on fillers whose user CPU was timed.
	Partial *PartialPayload `json:"partial_payload,omitempty"`
	// UnpricedPartial, when set instead of Partial, is the calibration
	// fillers' partial payload against their table's rules: the curve
	// could price a partial payload apart but its calibration did not time
	// the restore's user CPU, so a prediction warns when a payload's
	// differs (unpricedPartialOf).
	UnpricedPartial *FillerPartial `json:"unpriced_partial_payload,omitempty"`
	// Measured are the median seconds the curve was fitted on at each
	// calibrated size, ascending: a sync takes no less time for more
	// rules, so a full or incremental sync predicted between two
	// calibrated sizes is kept between their medians (withinMeasured).
	Measured []MeasuredSync `json:"measured,omitempty"`
}

// MeasuredSync is the median of the seconds fitted at one calibrated size.
type MeasuredSync struct {
	Rules   float64 `json:"rules"`
	Seconds float64 `json:"seconds"`
}

// powerFromFraction: the power form uses the sizes of at least
// MaxRules/powerFromFraction rules (when 2 sizes or more are left).
const powerFromFraction = 25

// fitSyncCurve fits seconds against rules as SyncCurve documents. It needs
// 3 points at distinct sizes.
//
// form says what is known of the tool's growth (Selected "mechanism"
// when it decides): a quadratic term (form.quadratic,
// dataplane.Info.FullSyncQuadratic) chooses the quadratic when its
// quadratic term is positive beyond its 95% interval (over small sizes
// alone that term is lost in the noise, and a quadratic chosen then
// extrapolates the noise; sync probes at larger sizes show it); a priced
// chain-list walk (form.chainList: seconds are then the rest of the sync)
// chooses the line, as the rest (parsing the payload, building its
// objects, the kernel's commit) grows with the rules, and a form chosen on
// what is left of small syncs after the walk (a fraction of a second,
// noisy, the walk's price off by up to its uncertainty) would extrapolate
// that noise 10× (a quadratic turning down: negative seconds).
func fitSyncCurve(metric string, rules, seconds []float64, minR2 float64, form syncForm) (SyncCurve, error) {
	c := SyncCurve{Metric: metric, Points: len(rules)}
	if n := distinctCount(rules); n < 3 {
		return c, fmt.Errorf("%s: %d measured sizes, need 3", metric, n)
	}
	for _, r := range rules {
		c.MaxRules = math.Max(c.MaxRules, r)
	}
	lin, err := stats.LinearFit(rules, seconds)
	if err != nil {
		return c, fmt.Errorf("%s: %w", metric, err)
	}
	c.Linear, c.LinearR2 = lin, lin.R2
	c.PowerFrom = powerFrom(rules, c.MaxRules)
	c.PowerOffset = fixedCost(rules, seconds, c.MaxRules/fixedCostFraction)
	if pow, err := powerFit(above(rules, minus(seconds, c.PowerOffset), c.PowerFrom)); err == nil {
		c.Power = &pow
	}
	if len(rules) >= 4 {
		if q, err := quadraticFit(rules, seconds); err == nil {
			c.Quadratic = &q
		}
	}
	best, bestErr := c.bestForm(rules, seconds)
	c.Form = best
	if lin.R2 >= minR2 {
		c.Form = FormLinear
		if best != FormLinear && bestErr < residualStdErr(seconds, c.predictions(FormLinear, rules), 2)/2 {
			c.BetterForm = best
		}
	}
	c.Selected = "fit"
	if distinctCount(rules) >= 4 {
		c.validate(rules, seconds)
	}
	switch {
	case form.chainList != nil:
		c.Form, c.Selected, c.BetterForm = FormLinear, "mechanism", ""
	case form.quadratic && c.Quadratic != nil && c.Quadratic.curvesUp():
		c.Form, c.Selected, c.BetterForm = FormQuadratic, "mechanism", ""
	}
	c.R2 = rSquared(seconds, c.predictions(c.Form, rules))
	c.Measured = mediansBySize(rules, seconds)
	return c, nil
}

// mediansBySize is the median of seconds at each distinct size of rules,
// ascending.
func mediansBySize(rules, seconds []float64) []MeasuredSync {
	by := map[float64][]float64{}
	for i, r := range rules {
		by[r] = append(by[r], seconds[i])
	}
	out := make([]MeasuredSync, 0, len(by))
	for r, ys := range by {
		out = append(out, MeasuredSync{Rules: r, Seconds: stats.Median(ys)})
	}
	slices.SortFunc(out, func(a, b MeasuredSync) int { return cmp.Compare(a.Rules, b.Rules) })
	return out
}

// withinMeasured keeps e, a full or incremental sync predicted at rules
// between two calibrated sizes, between their medians, and where the form
// leaves them takes the line between the two instead: a form fitted over
// sizes a hundredfold apart can miss the small ones by more than they take
// (the embedded default's iptables-legacy quadratic, fitted to 500,018
// rules, put +0.83 s at 128 rules where 33 took 2.5 ms and 5,018 took
// 40 ms, and 0.105 s at 100,009 rules where 100,018 took 0.881). The
// interval is widened to take in the value. Below the smallest calibrated
// size it takes no more than that size's median, and where the form
// predicts nothing there (a line's negative intercept: the embedded
// default's iptables-legacy incremental sync, whose smallest timed size
// is 25,018 rules, put 0 s at a 109-rule cluster) that median in
// proportion to the rules (belowSmallest); above the largest, e is as the
// form predicts.
func (c SyncCurve) withinMeasured(rules float64, e Estimate) Estimate {
	if c.Metric != MetricSyncFull && c.Metric != MetricSyncIncremental {
		return e
	}
	i, _ := slices.BinarySearchFunc(c.Measured, rules, func(m MeasuredSync, r float64) int { return cmp.Compare(m.Rules, r) })
	switch {
	case i >= len(c.Measured):
		return e
	case i == 0 && c.Measured[0].Rules != rules:
		e.Value = belowSmallest(c.Measured[0], rules, e.Value)
	case c.Measured[i].Rules == rules:
		e.Value = c.Measured[i].Seconds
	default:
		a, b := c.Measured[i-1], c.Measured[i]
		if e.Value < min(a.Seconds, b.Seconds) || e.Value > max(a.Seconds, b.Seconds) {
			e.Value = onChord(a.Rules, a.Seconds, b.Rules, b.Seconds, rules)
		}
	}
	e.Lo, e.Hi = min(e.Lo, e.Value), max(e.Hi, e.Value)
	return e
}

// belowSmallest is a sync of rules, fewer than the smallest calibrated
// size's, that the form predicts at value: no longer than that size's
// median, and, where the form predicts nothing (value ≤ 0), that median in
// proportion to the rules. The proportion leaves out a sync's fixed cost
// (a restore tool's start), so it is low for a tiny payload, but it is a
// time the calibration measured, where 0 s is none.
func belowSmallest(smallest MeasuredSync, rules, value float64) float64 {
	if value <= 0 && rules > 0 && smallest.Rules > 0 {
		return smallest.Seconds * rules / smallest.Rules
	}
	return min(max(value, 0), smallest.Seconds)
}

// powerFrom is the smallest size the power form uses: MaxRules/25, unless
// that leaves fewer than 2 sizes (then all).
func powerFrom(rules []float64, maxRules float64) float64 {
	from := maxRules / powerFromFraction
	if xs, _ := above(rules, rules, from); distinctCount(xs) < 2 {
		return 0
	}
	return from
}

// fixedCostFraction: a size below MaxRules/fixedCostFraction (e.g. one
// service among thousands) measures a sync's fixed cost.
const fixedCostFraction = 200

// fixedCost is the time at the smallest size when it lies below from (the
// fixed cost of a sync), else 0.
func fixedCost(x, y []float64, from float64) float64 {
	smallest := 0
	for i := range x {
		if x[i] < x[smallest] {
			smallest = i
		}
	}
	if len(x) == 0 || x[smallest] >= from {
		return 0
	}
	return y[smallest]
}

func minus(y []float64, c float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = v - c
	}
	return out
}

// above keeps the points with x ≥ from.
func above(x, y []float64, from float64) (xs, ys []float64) {
	for i := range x {
		if x[i] >= from {
			xs, ys = append(xs, x[i]), append(ys, y[i])
		}
	}
	return xs, ys
}

// validate fits every form without the largest size, predicts it, and
// chooses the form that predicted it best (see SyncCurve.Validation).
func (c *SyncCurve) validate(rules, seconds []float64) {
	var xs, ys []float64
	second := 0.0
	for i, r := range rules {
		if r < c.MaxRules {
			xs, ys = append(xs, r), append(ys, seconds[i])
			second = math.Max(second, r)
		}
	}
	var want float64
	for i, r := range rules {
		if r == c.MaxRules {
			want = seconds[i]
		}
	}
	rest := SyncCurve{MaxRules: second, PowerOffset: c.PowerOffset}
	if lin, err := fitLine(xs, ys); err == nil {
		rest.Linear = lin
	}
	if pow, err := powerFit(above(xs, minus(ys, c.PowerOffset), c.PowerFrom)); err == nil {
		rest.Power = &pow
	}
	// Through 3 sizes a quadratic passes exactly, whatever their noise:
	// its extrapolation would be luck, not evidence.
	if distinctCount(xs) >= 4 {
		if q, err := quadraticFit(xs, ys); err == nil {
			rest.Quadratic = &q
		}
	}
	c.Validation = map[string]float64{}
	c.ValidationFactor = c.MaxRules / second
	best, bestErr := "", math.Inf(1)
	for _, form := range []string{FormLinear, FormPower, FormQuadratic} {
		if (form == FormPower && (rest.Power == nil || c.Power == nil)) || (form == FormQuadratic && (rest.Quadratic == nil || c.Quadratic == nil)) {
			continue
		}
		if !c.grows(form) {
			continue // a form that turns down beyond the data cannot be a sync time
		}
		e := rest.atForm(form, c.MaxRules).Value/want - 1
		c.Validation[form] = e
		if math.Abs(e) < bestErr {
			best, bestErr = form, math.Abs(e)
		}
	}
	if best != "" {
		c.Form, c.Selected, c.BetterForm = best, "extrapolation", ""
	}
}

// grows says whether the form, fitted on every point, keeps growing beyond
// the data (to 10× the largest size): a concave quadratic fitted to noisy
// times turns down and predicts nonsense at large sizes.
func (c SyncCurve) grows(form string) bool {
	at := func(x float64) float64 { return c.atForm(form, x).Value }
	return at(10*c.MaxRules) >= at(c.MaxRules) && at(c.MaxRules) > 0
}

// ExtrapolationError is the relative error the validation found for the
// chosen form, grown with the extrapolation: e × ln(factor)/ln(validated
// factor), at least e (0 when not validated).
func (c SyncCurve) ExtrapolationError(factor float64) float64 {
	e, ok := c.Validation[c.Form]
	if !ok || c.ValidationFactor <= 1 {
		return 0
	}
	grow := math.Max(1, math.Log(math.Max(factor, 1))/math.Log(c.ValidationFactor))
	return math.Abs(e) * grow
}

// powerFit fits ln y against ln x (a line through 2 points has no
// interval); every x and y must be positive.
func powerFit(x, y []float64) (stats.Fit, error) {
	lx, ly := make([]float64, len(x)), make([]float64, len(y))
	for i := range x {
		if !(x[i] > 0 && y[i] > 0) {
			return stats.Fit{}, fmt.Errorf("power fit: point %d (%v, %v) is not positive", i, x[i], y[i])
		}
		lx[i], ly[i] = math.Log(x[i]), math.Log(y[i])
	}
	return fitLine(lx, ly)
}

// bestForm picks the fitted form with the smallest residual standard error
// (residual sum of squares over the degrees of freedom left) in seconds,
// and returns it with that error.
func (c SyncCurve) bestForm(x, y []float64) (string, float64) {
	best, bestErr := FormLinear, residualStdErr(y, c.predictions(FormLinear, x), 2)
	if c.Power != nil {
		if e := residualStdErr(y, c.predictions(FormPower, x), 2); e < bestErr {
			best, bestErr = FormPower, e
		}
	}
	if c.Quadratic != nil {
		if e := residualStdErr(y, c.predictions(FormQuadratic, x), 3); e < bestErr {
			best, bestErr = FormQuadratic, e
		}
	}
	return best, bestErr
}

func (c SyncCurve) predictions(form string, x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = c.atForm(form, v).Value
	}
	return out
}

func residualStdErr(y, fitted []float64, params int) float64 {
	return math.Sqrt(sumSquaredResiduals(y, fitted) / float64(len(y)-params))
}

func sumSquaredResiduals(y, fitted []float64) float64 {
	sse := 0.0
	for i := range y {
		sse += (y[i] - fitted[i]) * (y[i] - fitted[i])
	}
	return sse
}

// rSquared is 1 − SSE/SST, or 1 when y is constant.
func rSquared(y, fitted []float64) float64 {
	sst := squaredDeviations(y)
	if sst == 0 {
		return 1
	}
	return 1 - sumSquaredResiduals(y, fitted)/sst
}

// At predicts the sync time for a ruleset of the given rules with a 95%
// interval for the mean, in the chosen form.
func (c SyncCurve) At(rules float64) Estimate {
	return c.withinMeasured(rules, c.atForm(c.Form, rules))
}

// restoresOf are the payloads of each restore a sync of size takes on
// curve c: one per family when c is one restore's time (OneFamily) and
// size has several (Size.FamilyRules and FamilyChains, scaled to
// size.Rules, which a holdout sets to what the lab loaded); otherwise
// size's in one. Chains are 0 where size does not count them.
func (c SyncCurve) restoresOf(size Size) []restorePayload {
	total := 0
	for _, r := range size.FamilyRules {
		total += r
	}
	if !c.OneFamily || len(size.FamilyRules) < 2 || total <= 0 {
		return []restorePayload{{rules: float64(size.Rules), chains: float64(size.Chains), partialRules: float64(size.PartialRules)}}
	}
	scale := float64(size.Rules) / float64(total)
	restores := make([]restorePayload, len(size.FamilyRules))
	for i, r := range size.FamilyRules {
		restores[i].rules = float64(r) * scale
		if len(size.FamilyChains) == len(size.FamilyRules) {
			restores[i].chains = float64(size.FamilyChains[i]) * scale
		}
	}
	return restores
}

func (c SyncCurve) atForm(form string, rules float64) Estimate {
	switch {
	case form == FormPower && c.Power != nil:
		y, lo, hi := stats.Predict(*c.Power, math.Log(rules))
		off := c.PowerOffset
		return Estimate{Value: off + math.Exp(y), Lo: off + math.Exp(lo), Hi: off + math.Exp(hi), NoInterval: !hasInterval(*c.Power)}
	case form == FormQuadratic && c.Quadratic != nil:
		return c.Quadratic.predict(rules)
	}
	y, lo, hi := stats.Predict(c.Linear, rules)
	return Estimate{Value: y, Lo: lo, Hi: hi}
}

// lineUnderestimatesLargest says whether the line passes below the point
// with the largest x: the sign of a curve that grows faster than linearly.
func lineUnderestimatesLargest(line stats.Fit, x, y []float64) bool {
	largest := 0
	for i := range x {
		if x[i] > x[largest] {
			largest = i
		}
	}
	return y[largest] > line.Intercept+line.Slope*x[largest]
}
