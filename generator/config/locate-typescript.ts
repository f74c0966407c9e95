import { Node, Project } from "ts-morph";

/**
 * Finds where a config path is written in a `forage.config.ts`, by walking the object literal of
 * `export default defineConfig({ … })` (or `export default { … }`). Values computed in code are
 * located at the nearest literal that contains them; nothing is executed here.
 */
export function typescriptLocator(
  text: string,
): (path: readonly (string | number)[], atKey?: boolean) => { line: number; column: number } | undefined {
  const source = new Project({ useInMemoryFileSystem: true }).createSourceFile("forage.config.ts", text);
  const exported = source.getExportAssignment((e) => !e.isExportEquals())?.getExpression();
  const root = Node.isCallExpression(exported) ? exported.getArguments()[0] : exported;
  return (path, atKey = false) => {
    let node: Node | undefined = root;
    let keyNode: Node | undefined;
    for (const part of path) {
      const next = childOf(node, part);
      if (next === undefined) break;
      [node, keyNode] = [next.value, next.key];
    }
    const target = atKey && keyNode !== undefined ? keyNode : node;
    if (target === undefined) return undefined;
    const { line, column } = source.getLineAndColumnAtPos(target.getStart());
    return { line, column };
  };
}

function childOf(node: Node | undefined, part: string | number): { key?: Node; value: Node } | undefined {
  if (Node.isObjectLiteralExpression(node)) {
    for (const property of node.getProperties()) {
      if (!Node.isPropertyAssignment(property) && !Node.isShorthandPropertyAssignment(property)) continue;
      const nameNode = property.getNameNode();
      const name =
        Node.isStringLiteral(nameNode) || Node.isNumericLiteral(nameNode)
          ? nameNode.getLiteralText()
          : nameNode.getText();
      if (name !== String(part)) continue;
      const value = Node.isPropertyAssignment(property) ? property.getInitializer() : undefined;
      return { key: nameNode, value: value ?? nameNode };
    }
  }
  if (Node.isArrayLiteralExpression(node) && typeof part === "number") {
    const element = node.getElements()[part];
    return element === undefined ? undefined : { value: element };
  }
  return undefined;
}
