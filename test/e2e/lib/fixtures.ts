// The documents the scripted lead and agents write in the golden path: a plan for the sample project, expert
// artifacts, worker completion reports and auxiliary reports, each in the format the skills' refs describe.

export const GOAL = "add due dates to the todo API";

/** Roles by index, as the plan lists them. */
export const ROLES = ["schema-designer", "api-developer", "ui-developer", "docs-writer"] as const;

const check = (criterion: string, command: string) => [{ criterion, check: command }];

/** The auxiliary roles finalize requires of a plan whose goal touches code (src/lib/plan/plan-rules.ts). */
export const REQUIRED_AUXILIARIES = [
  { name: "challenger", type: "pre-execution", trigger: "before-execution", model: "sonnet", goal: "Find gaps, wrong assumptions and missing dependencies before any worker starts" },
  { name: "scout", type: "pre-execution", trigger: "before-execution", model: "haiku", goal: "Check the plan's assumptions against the code" },
  { name: "integration-verifier", type: "post-execution", trigger: "after-all-roles-complete", model: "sonnet", goal: "Verify that the roles fit together" },
  { name: "memory-curator", type: "post-execution", trigger: "after-all-roles-complete", model: "haiku", goal: "Keep what this run teaches" },
];

/** Why a quick plan leaves out the challenger and the scout (finalize asks for the reason). */
export const QUICK_SKIPS = [
  { name: "challenger", reason: "design-tier answered the quick path: one area, nothing high-stakes or contested" },
  { name: "scout", reason: "design-tier answered the quick path: the user named the files this plan touches" },
];

/** The golden plan's one verification spec (4 roles: a complex plan needs specs), written beside the draft. */
export const DESIGN_SPEC = {
  role: "schema-designer",
  path: ".design/specs/spec-schema-designer.sh",
  runCommand: "sh .design/specs/spec-schema-designer.sh",
  properties: ["A todo without a due date still loads"],
};
export const DESIGN_SPEC_TEXT = "#!/bin/sh\n# A todo without a due date still loads.\nnode -e \"require('./src/db/store.js')\"\n";

export function designPlan(goal = GOAL): object {
  return {
    schemaVersion: 4,
    goal,
    goalType: "implementation",
    tier: "complex",
    context: { stack: "Node 20, CommonJS, node:test", conventions: ["CommonJS modules"], testCommand: "npm test", buildCommand: null, lsp: null },
    expertArtifacts: [
      { name: "architect", path: ".design/expert-architect.json", summary: "Add the field in the store first; the API and UI read it" },
      { name: "api-designer", path: ".design/expert-api-designer.json", summary: "Due dates travel as ISO 8601 strings" },
    ],
    designDecisions: [{ conflict: "Date format", experts: ["architect", "api-designer"], decision: "ISO 8601 strings", reasoning: "JSON friendly, sortable" }],
    verificationSpecs: [{ ...DESIGN_SPEC }],
    roles: [
      {
        name: "schema-designer",
        goal: "Every stored todo can carry an optional due date",
        model: "haiku",
        scope: { directories: ["src/db"], patterns: [], dependencies: [] },
        expertContext: [{ expert: "architect", artifact: ".design/expert-architect.json", relevance: "store layout" }],
        constraints: ["Keep the store a Map"],
        acceptanceCriteria: check("The store tests pass", "node --test test/"),
        assumptions: [],
        rollbackTriggers: [],
        fallback: "Keep due dates in a side map",
      },
      {
        name: "api-developer",
        goal: "The list endpoint returns each todo's due date",
        model: "sonnet",
        scope: { directories: ["src/api"], patterns: [], dependencies: ["schema-designer"] },
        expertContext: [{ expert: "api-designer", artifact: ".design/expert-api-designer.json", relevance: "date format" }],
        constraints: [],
        acceptanceCriteria: check("The API tests pass", "node --test test/"),
        assumptions: [],
        rollbackTriggers: [],
        fallback: "Serialise the date in the handler",
      },
      {
        name: "ui-developer",
        goal: "The page shows the due date next to each todo",
        model: "sonnet",
        scope: { directories: ["src/ui"], patterns: [], dependencies: ["api-developer"] },
        expertContext: [],
        constraints: [],
        acceptanceCriteria: check("The page renders due dates", "node --test test/"),
        assumptions: [],
        rollbackTriggers: [],
        fallback: "",
      },
      {
        name: "docs-writer",
        goal: "The README documents due dates",
        model: "haiku",
        scope: { directories: ["src/api"], patterns: ["README.md"], dependencies: [] },
        expertContext: [],
        constraints: [],
        acceptanceCriteria: [
          { criterion: "The README mentions due dates", check: `python3 -c "import sys; sys.exit(0 if 'due' in open('README.md').read() else 1)"` },
          { criterion: "The tests still pass", check: "node --test test/" },
        ],
        assumptions: [],
        rollbackTriggers: [],
        fallback: "",
      },
    ],
    auxiliaryRoles: [
      ...REQUIRED_AUXILIARIES.map((a) => ({ ...a })),
    ],
  };
}

export function expertArtifact(name: string): object {
  return name === "architect"
    ? {
        summary: "The store is one Map in src/db/store.js; a due date is one more optional field, read by the API and the page.",
        verificationProperties: [{ property: "A todo without a due date still loads", category: "invariant", testableVia: "node --test test/" }],
        proposedRoles: [{ name: "schema-designer", goal: "Store due dates", scope: ["src/db"] }],
      }
    : {
        summary: "The list endpoint returns todos as JSON; due dates should travel as ISO 8601 strings.",
        verificationProperties: [{ property: "dueDate is an ISO 8601 string or absent", category: "boundary", testableVia: "node --test test/" }],
        proposedRoles: [{ name: "api-developer", goal: "Return due dates", scope: ["src/api"] }],
      };
}

const FILES: Record<string, string> = {
  "schema-designer": "src/db/store.js",
  "api-developer": "src/api/server.js",
  "ui-developer": "src/ui/index.html",
  "docs-writer": "README.md",
};

export function workerReport(role: string, achieved: boolean, attempt: number): object {
  return {
    role,
    achieved,
    filesChanged: achieved ? [FILES[role]] : [],
    acceptanceCriteria: [
      { criterion: "The tests pass", passed: achieved, evidence: achieved ? "node --test test/: 1 passed" : `node --test test/: 1 failed (attempt ${attempt})` },
    ],
    keyDecisions: achieved ? [`${role}: due dates are ISO 8601 strings`] : [],
    contextForDependents: achieved ? `${role} is done; dueDate is optional` : "",
  };
}

export const CHALLENGER_REPORT = {
  issues: [
    {
      category: "criteria-gap",
      severity: "high-risk",
      description: "api-developer has no check that a todo without a due date still serialises",
      affectedRoles: ["api-developer"],
      recommendation: "Add a constraint to keep todos without a due date valid",
    },
  ],
  summary: "No blocking issue; one criteria gap for api-developer.",
};

export const SCOUT_REPORT = {
  scopeAreas: [{ directory: "src/api", affectedRoles: ["api-developer", "docs-writer"], actualStructure: { files: ["src/api/server.js"], patterns: [], conventions: ["CommonJS"] } }],
  discrepancies: [
    { area: "src/api", expected: "An Express router", actual: "A plain function module", impact: "medium", recommendation: "Do not add a framework; extend the function" },
  ],
  summary: "The API is a plain function module.",
};

export const VERIFIER_REPORT = {
  status: "PASS",
  acceptanceCriteria: [
    { role: "schema-designer", criterion: "The store tests pass", result: "pass", details: "1 passed" },
    { role: "api-developer", criterion: "The API tests pass", result: "pass", details: "1 passed" },
    { role: "ui-developer", criterion: "The page renders due dates", result: "pass", details: "1 passed" },
    { role: "docs-writer", criterion: "The README mentions due dates", result: "skipped", details: "role failed" },
  ],
  crossRoleIssues: [],
  testResults: { command: "npm test", exitCode: 0, output: "1 passed" },
  endToEndVerification: { tested: true, result: "pass", details: "due dates flow from store to page" },
  summary: "The completed roles fit together; the docs role failed.",
};

/** The memory the sample project starts with; the curator proposes it again, so memory-add refuses a duplicate. */
export const SEEDED_MEMORY = "Keep the todo store behind one module so the API and UI share it";

export const NEW_MEMORY = {
  category: "mistake",
  keywords: "docs,readme,checks",
  content: "A docs role whose check greps the README fails until the README exists; give docs roles a behavioural check",
  importance: "7",
  surprise: "the check looked like a test but only read a file the role had not written yet",
};

export const CURATOR_REPORT = {
  memories: [
    { category: NEW_MEMORY.category, keywords: NEW_MEMORY.keywords.split(","), content: NEW_MEMORY.content, importance: 7, surprise: NEW_MEMORY.surprise },
    { category: "pattern", keywords: ["todo", "api"], content: SEEDED_MEMORY, importance: 6 },
  ],
  boost: [],
  decay: [],
  summary: "One new mistake kept; one repeat of an existing pattern.",
};

export const DESIGN_EVAL = {
  whatWorked: ["Two experts agreed on ISO 8601 dates in the first round"],
  whatFailed: ["The design run was interrupted after the experts and had to be resumed"],
  doNextTime: ["Keep the expert briefs short so a run finishes in one session"],
  expertQuality: "good",
  crossReviewValue: "useful",
  planCompleteness: "complete",
};

export const EXECUTE_EVAL = {
  whatWorked: ["The scout caught that the API is a plain function module before api-developer started"],
  whatFailed: ["docs-writer failed three times: its README check ran before the README had a due-date section"],
  doNextTime: ["Give docs roles a behavioural check instead of a grep of the README"],
  roleQuality: [
    { role: "api-developer", attempts: 2, outcome: "completed", note: "succeeded on opus" },
    { role: "docs-writer", attempts: 3, outcome: "failed", note: "README check never passed" },
  ],
  coordinationNotes: "docs-writer waited for api-developer because both touch src/api.",
};

export const RECON_GOAL = "where should the todo API change first";

/** The domain each researcher's findings come from (skills/recon/refs/researcher-briefs.md). */
const RESEARCH_DOMAIN: Record<string, string> = { "codebase-analyst": "codebase", "external-researcher": "literature", "domain-specialist": "theoretical" };

export function researcherArtifact(name: string): object {
  return {
    summary: `${name}: the todo API has no dates at all; the store is a single Map module.`,
    verificationProperties: [],
    noVerificationProperties: "the finding describes the code as it is and asks for no behaviour yet",
    findings: [{ id: `${name.slice(0, 2).toUpperCase()}-1`, domain: RESEARCH_DOMAIN[name] ?? "codebase", summary: "Todos carry no dates", evidence: "src/db/store.js" }],
  };
}

export function reconDoc(): object {
  return {
    schemaVersion: 1,
    goal: RECON_GOAL,
    scope: "src/",
    context: { stack: "Node 20, CommonJS", conventions: [], testCommand: "npm test", buildCommand: null, lsp: null },
    timestamp: "2026-01-31T10:00:00Z",
    sources: ["codebase-analyst", "external-researcher", "domain-specialist"].map((name) => ({ name, artifact: `.design/expert-${name}.json`, summary: "todos carry no dates" })),
    researchFindings: [
      { id: "CO-1", domain: "codebase", source: "src/db/store.js", summary: "Todos carry no dates", implications: "No reminders or sorting", relevantLeverageLevels: [6] },
      { id: "EX-1", domain: "literature", source: "todo apps survey", summary: "Due dates are the most used field after the title", implications: "Users expect them", relevantLeverageLevels: [6] },
    ],
    interventions: [
      {
        id: "I1",
        rank: 1,
        title: "Give todos a due date",
        description: "Add an optional due date to the data model and carry it through the API and the page.",
        leverageLevel: 6,
        leverageName: "structure",
        leverageGroup: "Feedbacks",
        designGoal: GOAL,
        constraints: ["Todos without a due date stay valid"],
        supportingFindings: ["CO-1", "EX-1"],
        confidence: "high",
        effort: "small",
        authorityRequired: "developer",
        risk: "Date formats drift between layers",
      },
    ],
    contradictions: [],
    knowledgeGaps: [],
    additionalFindings: 0,
  };
}
