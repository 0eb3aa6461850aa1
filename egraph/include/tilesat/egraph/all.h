// The public vocabulary of the e-graph engine in one include.
//
// tilesat::egraph is a generic equality-saturation engine: e-graphs over any term language
// (operator symbol + attribute payload + children), analyses, s-expression patterns compiled
// for e-matching, rewrite rules with guards and C++ appliers, a runner with limits, schedulers
// and reports, explanations, extraction and DOT export. See docs/egraph.md.
//
//   #include "tilesat/egraph/all.h"
//   using namespace tilesat::egraph;
//   EGraph eg;  Id root = eg.add_term(RecExpr::parse("(+ a b)"));
//   Report r = Runner().run(eg, Rewrite::parse("comm", "(+ ?x ?y) => (+ ?y ?x)"));
//   RecExpr best = Extractor(eg, AstSize()).extract(root);
#pragma once

#include "tilesat/egraph/analysis.h"     // Analysis, AnalysisOf<T>, DidMerge
#include "tilesat/egraph/attr.h"         // AttrValue, Attrs, AttrTable, AttrId, Rational
#include "tilesat/egraph/deadline.h"     // Deadline
#include "tilesat/egraph/dot.h"          // to_dot
#include "tilesat/egraph/eclass.h"       // EClassRef
#include "tilesat/egraph/egraph.h"       // EGraph
#include "tilesat/egraph/enode.h"        // ENode
#include "tilesat/egraph/error.h"        // ParseError, RuleError
#include "tilesat/egraph/explain.h"      // Explanation, Justification, check_explanation
#include "tilesat/egraph/extract.h"      // CostFunction, AstSize, AstDepth, Extractor
#include "tilesat/egraph/id.h"           // Id, NodeId, kNoId
#include "tilesat/egraph/multipattern.h" // MultiPattern
#include "tilesat/egraph/pattern.h"      // Pattern, PatternNode
#include "tilesat/egraph/rewrite.h"      // Rewrite, Condition, Applier, Verdict, guard, applier
#include "tilesat/egraph/runner.h"       // Runner, RunnerConfig, Report, Iteration, Stop
#include "tilesat/egraph/scheduler.h"    // Scheduler, SimpleScheduler, BackoffScheduler
#include "tilesat/egraph/searcher.h"     // Searcher
#include "tilesat/egraph/subst.h"        // Var, Subst, Matches
#include "tilesat/egraph/symbol.h"       // Symbol
#include "tilesat/egraph/term.h"         // RecExpr, TermNode
