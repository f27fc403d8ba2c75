// The API's documentation, drawn from /openapi.json as text (no HTML from the document).

const main = document.getElementById("docs");

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function refName(ref) {
  return ref.split("/").pop();
}

function schemaText(schema) {
  if (!schema) return "";
  if (schema.$ref) return refName(schema.$ref);
  if (schema.anyOf) return schema.anyOf.map(schemaText).join(" | ");
  if (schema.type === "array") return `${schemaText(schema.items)}[]`;
  return schema.type || "object";
}

function section(title, children) {
  const box = el("section");
  box.append(el("h2", title), ...children);
  return box;
}

async function draw() {
  const doc = await (await fetch("/openapi.json")).json();
  main.replaceChildren(el("h1", `${doc.info.title} ${doc.info.version}`));
  main.append(el("p", doc.info.description || ""));
  main.append(el("p", "The machine-readable document: /openapi.json"));
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const parts = [];
      // Docstrings are reST: ``code`` reads as plain text here.
      if (op.description) parts.push(el("pre", op.description.replaceAll("``", ""), "text"));
      for (const p of op.parameters || []) {
        parts.push(el("p", `${p.in} ${p.name}: ${schemaText(p.schema)}${p.required ? "" : " (optional)"}`));
      }
      const body = op.requestBody?.content?.["application/json"]?.schema;
      if (body) parts.push(el("p", `body: ${schemaText(body)}`));
      for (const [code, answer] of Object.entries(op.responses || {})) {
        const schema = answer.content?.["application/json"]?.schema;
        parts.push(el("p", `${code} ${answer.description}: ${schemaText(schema)}`));
      }
      main.append(section(`${method.toUpperCase()} ${path}`, parts));
    }
  }
  const schemas = doc.components?.schemas || {};
  for (const [name, schema] of Object.entries(schemas)) {
    main.append(section(name, [el("pre", JSON.stringify(schema, null, 2), "schema")]));
  }
}

draw().catch((error) => main.append(el("p", `Could not read the document: ${error}`)));
