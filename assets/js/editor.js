// CodeMirror 6 over each textarea[data-code]: Python mode, line numbers, Tab indents (Escape
// then Tab leaves the editor, as CodeMirror documents). The textarea stays the form's value.
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { bracketMatching, indentUnit } from "@codemirror/language";
import { EditorView, keymap, lineNumbers } from "@codemirror/view";

export function mountEditors(root, onChange) {
  for (const textarea of root.querySelectorAll("textarea[data-code]")) {
    const holder = document.createElement("div");
    holder.className = "code-editor";
    textarea.after(holder);
    textarea.hidden = true;
    const label = document.querySelector(`label[for="${textarea.id}"]`);
    if (label) label.id = `${textarea.id}-label`;
    const keys = document.getElementById(`${textarea.id.replace(/-input$/, "")}-keys`);
    new EditorView({
      doc: textarea.value,
      parent: holder,
      extensions: [
        lineNumbers(), history(), bracketMatching(), python(), indentUnit.of("    "),
        keymap.of([indentWithTab, ...defaultKeymap, ...historyKeymap]),
        // tabindex: the editable area counts as the keyboard's way into the scrolling editor.
        EditorView.contentAttributes.of({
          "aria-labelledby": `${textarea.id}-label`,
          "aria-multiline": "true",
          tabindex: "0",
          ...(keys ? { "aria-describedby": keys.id } : {}),
        }),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          textarea.value = update.state.doc.toString();
          onChange(textarea);
        }),
      ],
    });
  }
}
