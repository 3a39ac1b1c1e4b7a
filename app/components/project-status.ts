import type { ProjectStatus } from "~/content/site";

export interface StatusStyle {
  label: string;
  icon: string;
  /** Tailwind classes for the badge: background, text and border colour. */
  className: string;
}

const styles: Record<string, Omit<StatusStyle, "label">> = {
  building: { icon: "🔨", className: "bg-amber-100 text-amber-900 border-amber-300" },
  launched: { icon: "🚀", className: "bg-green-100 text-green-900 border-green-300" },
  sold: { icon: "💰", className: "bg-purple-100 text-purple-900 border-purple-300" },
  idea: { icon: "💡", className: "bg-blue-100 text-blue-900 border-blue-300" },
};

const fallback = { icon: "📝", className: "bg-slate-100 text-slate-800 border-slate-300" };

export function statusStyle(status: ProjectStatus): StatusStyle {
  const label = status.charAt(0).toUpperCase() + status.slice(1);
  return { label, ...(Object.hasOwn(styles, status) ? styles[status]! : fallback) };
}
