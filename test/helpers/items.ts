/** Minimal valid item texts for tests, keyed by what they are. */
export const PYTHON_TOOL = (category: string, extra = ''): string => `"""A test tool."""
__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "${category}"
__tool_description__ = "Test tool"
${extra}
print("hi")
`;

export const DIRECTIVE = (name: string, category: string): string => `# ${name}

\`\`\`xml
<directive name="${name}" version="1.0.0">
  <metadata>
    <description>Test directive</description>
    <category>${category}</category>
    <author>tester</author>
  </metadata>
  <process><step name="one"><description>Do it.</description></step></process>
</directive>
\`\`\`
`;

export const KNOWLEDGE = (name: string): string => `\`\`\`yaml
name: ${name}
title: ${name} title
entry_type: reference
version: "1.0.0"
\`\`\`

Body.
`;
