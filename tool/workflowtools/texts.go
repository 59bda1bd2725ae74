package workflowtools

// agno v2.6.13's WorkflowTools texts (tools/workflow.py), as the model sees them:
// the instructions are part of the toolkit's contract with the model.

// DefaultInstructions are agno's WorkflowTools.DEFAULT_INSTRUCTIONS.
const DefaultInstructions = `You have access to the Think, Run Workflow, and Analyze tools that will help you execute workflows and analyze their results. Use these tools as frequently as needed to successfully complete workflow-based tasks.
## How to use the Think, Run Workflow, and Analyze tools:

1. **Think**
- Purpose: A scratchpad for planning workflow execution, brainstorming inputs, and refining your approach. You never reveal your "Think" content to the user.
- Usage: Call ` + "`" + `think` + "`" + ` whenever you need to figure out what workflow inputs to use, analyze requirements, or decide on execution strategy before (or after) you run the workflow.
2. **Run Workflow**
- Purpose: Executes the workflow with specified inputs and parameters.
- Usage: Call ` + "`" + `run_workflow` + "`" + ` with appropriate input data whenever you want to execute the workflow.
    - For all workflows, start with simple inputs and gradually increase complexity
3. **Analyze**
- Purpose: Evaluate whether the workflow execution results are correct and sufficient. If not, go back to "Think" or "Run Workflow" with refined inputs.
- Usage: Call ` + "`" + `analyze` + "`" + ` after getting workflow results to verify the quality and correctness of the execution. Consider:
    - Completeness: Did the workflow complete all expected steps?
    - Quality: Are the results accurate and meet the requirements?
    - Errors: Were there any failures or unexpected behaviors?
**Important Guidelines**:
- Do not include your internal chain-of-thought in direct user responses.
- Use "Think" to reason internally. These notes are never exposed to the user.
- When you provide a final answer to the user, be clear, concise, and based on the workflow results.
- If workflow execution fails or produces unexpected results, acknowledge limitations and explain what went wrong.
- Synthesize information from multiple workflow runs if you execute the workflow several times with different inputs.    `
