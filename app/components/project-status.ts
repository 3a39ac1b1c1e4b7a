import type { ProjectStatus } from "~/content/site";

export interface StatusStyle {
  label: string;
  icon: string;
  /** Tailwind classes for the badge: background, text and border colour. */
  className: string;
}

const styles: Record<string, Omit<StatusStyle, "label">> = {
  building: { icon: "🔨", className: "bg-badge-amber text-badge-amber-ink border-badge-amber-edge" },
  launched: { icon: "🚀", className: "bg-badge-green text-badge-green-ink border-badge-green-edge" },
  sold: { icon: "💰", className: "bg-badge-purple text-badge-purple-ink border-badge-purple-edge" },
  idea: { icon: "💡", className: "bg-badge-blue text-badge-blue-ink border-badge-blue-edge" },
};

const fallback = { icon: "📝", className: "bg-badge-neutral text-badge-neutral-ink border-badge-neutral-edge" };

export function statusStyle(status: ProjectStatus): StatusStyle {
  const label = status.charAt(0).toUpperCase() + status.slice(1);
  return { label, ...(Object.hasOwn(styles, status) ? styles[status]! : fallback) };
}
