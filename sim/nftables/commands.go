package nftables

import "strings"

// families are the nftables address families a command may name.
var families = map[string]bool{"ip": true, "ip6": true, "inet": true, "arp": true, "bridge": true, "netdev": true}

// objRef reads "[family] table" starting at stmt[i] and returns the index
// after it. The family defaults to ip, as in nft.
func objRef(stmt []token, i int) (family, table string, next int, err error) {
	family = "ip"
	if i < len(stmt) && stmt[i].kind == tokWord && families[stmt[i].text] && i+1 < len(stmt) && stmt[i+1].kind == tokWord && stmt[i+1].text != "{" {
		family = stmt[i].text
		i++
	}
	if i >= len(stmt) || stmt[i].kind != tokWord || !validName(stmt[i].text) {
		return "", "", 0, errorf(stmt[0].line, "%s: missing or bad table name", stmt[0].text)
	}
	return family, stmt[i].text, i + 1, nil
}

// isPunct reports whether a word is one of the punctuation tokens.
func isPunct(s string) bool { return s == "{" || s == "}" || s == ";" || s == "," }

// command applies one transaction-form command.
func (p *parser) command(stmt []token) error {
	if len(stmt) == 0 {
		return nil
	}
	verb := stmt[0]
	if verb.kind != tokWord {
		return errorf(verb.line, "unexpected string %q", verb.text)
	}
	if len(stmt) < 2 {
		return errorf(verb.line, "%s: missing object", verb.text)
	}
	obj := stmt[1].text
	switch verb.text {
	case "add", "create":
		return p.add(verb.text, obj, stmt)
	case "insert":
		if obj != "rule" {
			return errorf(verb.line, "insert %s: unsupported", obj)
		}
		return p.addRule(stmt, true)
	case "flush":
		return p.flush(obj, stmt)
	case "delete", "destroy":
		return p.remove(verb.text == "destroy", obj, stmt)
	}
	return errorf(verb.line, "unknown command %q", verb.text)
}

// add handles add/create of every object type.
func (p *parser) add(verb, obj string, stmt []token) error {
	switch obj {
	case "table":
		return p.addTable(stmt)
	case "chain":
		return p.addChainCmd(stmt, verb == "create")
	case "set", "map":
		return p.addSetCmd(stmt, obj == "map", verb == "create")
	case "rule":
		return p.addRule(stmt, false)
	case "element":
		return p.elementCmd(stmt, false)
	case "counter":
		return p.addCounter(stmt)
	}
	return errorf(stmt[0].line, "%s %s: unsupported object", verb, obj)
}

// addTable handles "add table [family] name [{ comment "…" ; }]".
func (p *parser) addTable(stmt []token) error {
	fam, name, i, err := objRef(stmt, 2)
	if err != nil {
		return err
	}
	t := p.rs.ensureTable(fam, name)
	clauses, err := braceClauses(stmt, i)
	if err != nil {
		return err
	}
	for _, c := range clauses {
		if err := tableClause(t, c); err != nil {
			return err
		}
	}
	return nil
}

// tableClause applies one clause of a table body.
func tableClause(t *Table, c []token) error {
	switch {
	case c[0].is("comment") && len(c) == 2 && c[1].kind == tokString:
		t.Comment = c[1].text
	case c[0].is("flags"):
	default:
		return errorf(c[0].line, "table %s: unsupported clause %q", t.Name, joinTokens(c))
	}
	return nil
}

// lookupTable finds the table a command names.
func (p *parser) lookupTable(stmt []token, i int) (*Table, int, error) {
	fam, name, next, err := objRef(stmt, i)
	if err != nil {
		return nil, 0, err
	}
	t := p.rs.Table(fam, name)
	if t == nil {
		return nil, 0, errorf(stmt[0].line, "table %s %s does not exist", fam, name)
	}
	return t, next, nil
}

// objName reads the object name at stmt[i].
func objName(stmt []token, i int) (string, error) {
	if i >= len(stmt) || stmt[i].kind != tokWord || !validName(stmt[i].text) {
		return "", errorf(stmt[0].line, "%s %s: missing or bad name", stmt[0].text, stmt[1].text)
	}
	return stmt[i].text, nil
}

// addChainCmd handles "add chain fam table name [{ spec }]".
func (p *parser) addChainCmd(stmt []token, create bool) error {
	t, i, err := p.lookupTable(stmt, 2)
	if err != nil {
		return err
	}
	name, err := objName(stmt, i)
	if err != nil {
		return err
	}
	if create && t.Chain(name) != nil {
		return errorf(stmt[0].line, "chain %s already exists", name)
	}
	c := t.ensureChain(name, stmt[0].line)
	clauses, err := braceClauses(stmt, i+1)
	if err != nil {
		return err
	}
	for _, cl := range clauses {
		if err := chainClause(c, cl); err != nil {
			return err
		}
	}
	return nil
}

// addSetCmd handles "add set|map fam table name { spec }".
func (p *parser) addSetCmd(stmt []token, isMap, create bool) error {
	t, i, err := p.lookupTable(stmt, 2)
	if err != nil {
		return err
	}
	name, err := objName(stmt, i)
	if err != nil {
		return err
	}
	if create && t.Set(name) != nil {
		return errorf(stmt[0].line, "set %s already exists", name)
	}
	clauses, err := braceClauses(stmt, i+1)
	if err != nil {
		return err
	}
	s := t.ensureSet(name, isMap, stmt[0].line)
	for _, cl := range clauses {
		if err := p.setClause(t, s, cl); err != nil {
			return err
		}
	}
	if len(s.KeyType) == 0 {
		return errorf(stmt[0].line, "%s %s: no type", stmt[1].text, name)
	}
	return nil
}

// joinTokens renders tokens for error messages.
func joinTokens(ts []token) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(' ')
		}
		if t.kind == tokString {
			b.WriteString(`"` + t.text + `"`)
		} else {
			b.WriteString(t.text)
		}
	}
	return b.String()
}
