package nftables

// addRule handles "add|insert rule fam table chain BODY [comment "…"]".
func (p *parser) addRule(stmt []token, prepend bool) error {
	t, i, err := p.lookupTable(stmt, 2)
	if err != nil {
		return err
	}
	name, err := objName(stmt, i)
	if err != nil {
		return err
	}
	c := t.Chain(name)
	if c == nil {
		return errorf(stmt[0].line, "chain %s does not exist", name)
	}
	body := stmt[i+1:]
	if len(body) > 0 && (body[0].is("index") || body[0].is("handle") || body[0].is("position")) {
		return errorf(stmt[0].line, "rule %s: positions and handles are not supported", body[0].text)
	}
	r, err := parseRule(body, stmt[0].line)
	if err != nil {
		return err
	}
	if err := t.checkRefs(r); err != nil {
		return err
	}
	if prepend {
		c.Rules = append([]*Rule{r}, c.Rules...)
	} else {
		c.Rules = append(c.Rules, r)
	}
	return nil
}

// elementCmd handles "add|delete element fam table set { elements }".
func (p *parser) elementCmd(stmt []token, del bool) error {
	t, i, err := p.lookupTable(stmt, 2)
	if err != nil {
		return err
	}
	name, err := objName(stmt, i)
	if err != nil {
		return err
	}
	s := t.Set(name)
	if s == nil {
		return errorf(stmt[0].line, "set %s does not exist", name)
	}
	if i+1 >= len(stmt) || !stmt[i+1].is("{") {
		return errorf(stmt[0].line, "element %s: missing {", name)
	}
	elems, end, err := parseElements(stmt, i+1)
	if err != nil {
		return err
	}
	if end != len(stmt) {
		return errorf(stmt[end].line, "unexpected %q after elements", stmt[end].text)
	}
	for _, e := range elems {
		if del {
			err = s.deleteElement(e, stmt[0].line)
		} else {
			err = t.addElement(s, e, stmt[0].line)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// flush handles "flush ruleset|table|chain|set|map …".
func (p *parser) flush(obj string, stmt []token) error {
	if obj == "ruleset" {
		p.rs.Tables = nil
		return nil
	}
	t, i, err := p.lookupTable(stmt, 2)
	if err != nil {
		return err
	}
	if obj == "table" {
		for _, c := range t.Chains {
			c.Rules = nil
		}
		return nil
	}
	name, err := objName(stmt, i)
	if err != nil {
		return err
	}
	switch obj {
	case "chain":
		c := t.Chain(name)
		if c == nil {
			return errorf(stmt[0].line, "chain %s does not exist", name)
		}
		c.Rules = nil
	case "set", "map":
		s := t.Set(name)
		if s == nil {
			return errorf(stmt[0].line, "%s %s does not exist", obj, name)
		}
		s.Elements, s.index = nil, map[string]int{}
	default:
		return errorf(stmt[0].line, "flush %s: unsupported object", obj)
	}
	return nil
}

// remove handles delete/destroy; destroy ignores missing objects.
func (p *parser) remove(destroy bool, obj string, stmt []token) error {
	t, i, err := p.lookupTable(stmt, 2)
	if err != nil {
		if destroy {
			return nil
		}
		return err
	}
	if obj == "table" {
		p.rs.deleteTable(t)
		return nil
	}
	if obj == "element" {
		return p.elementCmd(stmt, true)
	}
	name, err := objName(stmt, i)
	if err != nil {
		return err
	}
	switch obj {
	case "chain":
		if destroy && t.Chain(name) == nil {
			return nil
		}
		return t.deleteChain(name, stmt[0].line)
	case "set", "map":
		if destroy && t.Set(name) == nil {
			return nil
		}
		return t.deleteSet(name, stmt[0].line)
	case "counter":
		return t.deleteCounter(name, destroy, stmt[0].line)
	}
	return errorf(stmt[0].line, "delete %s: unsupported object", obj)
}
